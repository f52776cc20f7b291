// SPDX-License-Identifier: MIT
// Drives `hearth --serve` through the official `openai` npm package, as editors and agents do:
// the model list, streamed and whole chats, stop sequences, a wrong key, malformed bodies, a
// client that goes away mid-stream, and a bounded load test (200 requests from 8 clients).
//
// node openai_client.cjs <hearth> <hearth-synth> <folder holding node_modules/openai> <work dir>
// Exits 0 when every check passes, 77 (skipped) when the openai package is not installed.
// The model is synthetic: two layers of TinyLlama's shape, slow enough (about 150 tokens/s on
// two cores) that an answer to the end of its 2048-token context takes many seconds.
'use strict';

const { spawn, execFileSync } = require('node:child_process');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const [hearth, synth, npmFolder, workDir] = process.argv.slice(2);
const dataDir = path.join(workDir, 'data');
const modelPath = path.join(workDir, 'client-test.gguf');
let OpenAI;
try {
    OpenAI = require(require.resolve('openai', { paths: [npmFolder] }));
    OpenAI = OpenAI.OpenAI || OpenAI.default || OpenAI;
} catch (error) {
    console.log(`SKIP: the openai package is not installed under ${npmFolder} (${error.message})`);
    process.exit(77);
}

const apiKey = 'test-key-' + process.pid;
const maxQueue = 4;

function startServer() {
    return new Promise((resolve, reject) => {
        const server = spawn(hearth, ['--serve', '--model', modelPath, '--port', '0', '--api-key', apiKey,
            '--max-queue', String(maxQueue), '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        const timer = setTimeout(() => reject(new Error('the server did not start:\n' + output)), 60000);
        const onData = (chunk) => {
            output += chunk;
            const match = output.match(/(http:\/\/127\.0\.0\.1:\d+\/v1)\s/);
            if (match && output.includes('Model:')) {
                clearTimeout(timer);
                resolve({ server, baseURL: match[1] });
            }
        };
        server.stdout.on('data', onData);
        server.stderr.on('data', (chunk) => { output += chunk; });
        server.on('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    });
}

async function health(baseURL) {
    const response = await fetch(baseURL.replace(/\/v1$/, '/health'));
    return response.json();
}

async function waitFor(check, what, timeoutMs = 10000) {
    const start = Date.now();
    while (Date.now() - start < timeoutMs) {
        if (await check())
            return;
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('timed out waiting for ' + what);
}

async function main() {
    fs.mkdirSync(dataDir, { recursive: true });
    execFileSync(synth, ['--shape', 'tinyllama-1.1b', '--layers', '2', '--type', 'q8_0', '-q', '-o', modelPath]);
    const { server, baseURL } = await startServer();
    const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 120000 });
    const results = [];
    const check = async (name, body) => {
        const start = Date.now();
        await body();
        results.push(name);
        console.log(`PASS ${name} (${Date.now() - start} ms)`);
    };
    try {
        let modelId;
        await check('models.list names the loaded model', async () => {
            const models = [];
            for await (const model of client.models.list())
                models.push(model);
            assert.equal(models.length, 1);
            assert.equal(models[0].id, path.basename(modelPath, '.gguf'));
            assert.ok(models[0].context_length > 0);
            modelId = models[0].id;
        });

        const question = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about the sea.' }];
        let whole;
        await check('a chat answered whole, with usage counts', async () => {
            const completion = await client.chat.completions.create({ model: modelId, messages: question, max_tokens: 24, temperature: 0, seed: 1 });
            whole = completion.choices[0].message.content;
            assert.equal(completion.object, 'chat.completion');
            assert.equal(completion.choices[0].message.role, 'assistant');
            assert.ok(whole.length > 0, 'an empty answer');
            assert.ok(completion.usage.prompt_tokens > 0);
            assert.ok(completion.usage.completion_tokens > 0 && completion.usage.completion_tokens <= 24);
            assert.equal(completion.usage.total_tokens, completion.usage.prompt_tokens + completion.usage.completion_tokens);
            assert.ok(['stop', 'length'].includes(completion.choices[0].finish_reason));
        });

        await check('the same chat streamed adds up to the same answer', async () => {
            const stream = await client.chat.completions.create({ model: modelId, messages: question, max_tokens: 24, temperature: 0, seed: 1,
                stream: true, stream_options: { include_usage: true } });
            let text = '';
            let chunks = 0;
            let usage = null;
            let finish = null;
            for await (const chunk of stream) {
                ++chunks;
                if (chunk.usage)
                    usage = chunk.usage;
                if (chunk.choices.length > 0) {
                    text += chunk.choices[0].delta.content || '';
                    finish = chunk.choices[0].finish_reason || finish;
                }
            }
            assert.equal(text, whole);
            assert.ok(chunks > 3, `only ${chunks} chunks`);
            assert.ok(usage && usage.completion_tokens > 0, 'no usage chunk');
            assert.ok(finish === 'stop' || finish === 'length');
        });

        await check('a stop sequence cuts the answer before it', async () => {
            // A piece of the known answer, after its first few characters.
            const stop = whole.slice(4, 7);
            assert.ok(stop.length > 0, 'the answer is too short to pick a stop sequence from');
            const expected = whole.slice(0, whole.indexOf(stop));
            const completion = await client.chat.completions.create({ model: modelId, messages: question, max_tokens: 24, temperature: 0, seed: 1, stop: [stop] });
            assert.equal(completion.choices[0].message.content, expected);
            assert.equal(completion.choices[0].finish_reason, 'stop');
            const stream = await client.chat.completions.create({ model: modelId, messages: question, max_tokens: 24, temperature: 0, seed: 1, stop, stream: true });
            let text = '';
            for await (const chunk of stream)
                text += chunk.choices[0]?.delta?.content || '';
            assert.equal(text, expected);
        });

        await check('completions continue a prompt as is', async () => {
            const completion = await client.completions.create({ model: modelId, prompt: 'Once upon a time', max_tokens: 8, temperature: 0 });
            assert.equal(completion.object, 'text_completion');
            assert.ok(completion.choices[0].text.length > 0);
            assert.equal(completion.usage.completion_tokens, 8);
            assert.equal(completion.choices[0].finish_reason, 'length');
        });

        await check('a wrong API key is refused with 401', async () => {
            const stranger = new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 });
            await assert.rejects(stranger.models.list(), (error) => error instanceof OpenAI.AuthenticationError && error.status === 401);
            await assert.rejects(stranger.chat.completions.create({ model: modelId, messages: question }),
                (error) => error.status === 401 && /API key/.test(error.message));
        });

        await check('malformed and mistyped bodies get 400 with a message', async () => {
            const raw = await fetch(baseURL + '/chat/completions', { method: 'POST', body: '{"messages": [', headers: { Authorization: 'Bearer ' + apiKey, 'Content-Type': 'application/json' } });
            assert.equal(raw.status, 400);
            const body = await raw.json();
            assert.equal(body.error.type, 'invalid_request_error');
            assert.match(body.error.message, /not valid JSON/);
            await assert.rejects(client.chat.completions.create({ model: modelId, messages: question, temperature: 'hot' }),
                (error) => error instanceof OpenAI.BadRequestError && /temperature/.test(error.message));
            await assert.rejects(client.chat.completions.create({ model: modelId, messages: question, max_tokens: 1e9 }),
                (error) => error.status === 400 && /max_tokens/.test(error.message));
            const huge = 'word '.repeat(20000);
            await assert.rejects(client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: huge }] }),
                (error) => error.status === 400 && error.code === 'context_length_exceeded');
        });

        await check('a client that goes away mid-stream stops its answer', async () => {
            const before = await health(baseURL);
            const controller = new AbortController();
            const stream = await client.chat.completions.create({ model: modelId, messages: question, temperature: 0.8, stream: true },
                { signal: controller.signal });
            let chunks = 0;
            for await (const chunk of stream) {
                if (chunk.choices.length > 0 && ++chunks === 4) {
                    controller.abort(); // the connection closes; no more is read
                    break;
                }
            }
            assert.equal(chunks, 4);
            // Without the stop the answer would run on to the end of the context (seconds).
            await waitFor(async () => {
                const now = await health(baseURL);
                return now.requests_active === 0 && now.requests_abandoned === before.requests_abandoned + 1;
            }, 'the abandoned answer to stop', 5000);
            const after = await client.chat.completions.create({ model: modelId, messages: question, max_tokens: 24, temperature: 0, seed: 1 });
            assert.equal(after.choices[0].message.content, whole, 'the next answer differs: the session was left in a bad state');
        });

        await check('a client that gives up on a whole answer stops it too', async () => {
            const before = await health(baseURL);
            const controller = new AbortController();
            const pending = client.chat.completions.create({ model: modelId, messages: question, temperature: 0.8 }, { signal: controller.signal });
            setTimeout(() => controller.abort(), 500);
            // Before the headers the client calls it APIUserAbortError, after them the fetch's AbortError.
            await assert.rejects(pending, (error) => error instanceof OpenAI.APIUserAbortError || error.name === 'AbortError');
            // Noticed at the next heartbeat (a space before the JSON), within about a second.
            await waitFor(async () => {
                const now = await health(baseURL);
                return now.requests_active === 0 && now.requests_abandoned === before.requests_abandoned + 1;
            }, 'the abandoned whole answer to stop', 5000);
        });

        await check('200 requests from 8 clients: none lost, none mixed up, 503s counted', async () => {
            const prompts = Array.from({ length: 10 }, (_, i) => `Question number ${i}: what comes next?`);
            const ask = (prompt) => client.chat.completions.create({ model: modelId, messages: [{ role: 'user', content: prompt }], max_tokens: 6, temperature: 0 });
            const expected = [];
            for (const prompt of prompts)
                expected.push((await ask(prompt)).choices[0].message.content);
            let next = 0;
            let answered = 0;
            let busy = 0;
            const worker = async () => {
                while (next < 200) {
                    const index = next++;
                    const prompt = prompts[index % prompts.length];
                    while (true) {
                        try {
                            const answer = await ask(prompt);
                            assert.equal(answer.choices[0].message.content, expected[index % prompts.length], `request ${index} got another's answer`);
                            ++answered;
                            break;
                        } catch (error) {
                            if (error.status !== 503)
                                throw error;
                            ++busy; // the queue was full: wait a moment, as Retry-After says
                            await new Promise((resolve) => setTimeout(resolve, 100));
                        }
                    }
                }
            };
            await Promise.all(Array.from({ length: 8 }, worker));
            assert.equal(answered, 200);
            const now = await health(baseURL);
            assert.equal(now.requests_turned_away, busy, 'the server counted other 503s than the clients saw');
            assert.ok(busy > 0, `8 clients and a queue of ${maxQueue} should see some 503s`);
            console.log(`  200 answered, ${busy} answers of 503 (queue of ${maxQueue}) retried`);
        });
    } finally {
        server.kill('SIGTERM');
    }
    console.log(`${results.length} checks passed`);
}

main().catch((error) => {
    console.error('FAIL:', error);
    process.exit(1);
});
