<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>CatalogEntry</name>
    <message>
        <source>The model catalog is not valid JSON: %1</source>
        <translation>The model catalog is not valid JSON: %1</translation>
    </message>
    <message>
        <source>The model catalog has an unknown version.</source>
        <translation>The model catalog has an unknown version.</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; has a file without name, quantization or size.</source>
        <translation>Catalog entry &quot;%1&quot; has a file without name, quantization or size.</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; lacks a required field.</source>
        <translation>Catalog entry &quot;%1&quot; lacks a required field.</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; appears twice.</source>
        <translation>Catalog entry &quot;%1&quot; appears twice.</translation>
    </message>
    <message>
        <source>The model catalog is empty.</source>
        <translation>The model catalog is empty.</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <source>≈ %1</source>
        <translation>≈ %1</translation>
    </message>
    <message>
        <source>%1 kB</source>
        <translation>%1 kB</translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChatSettingsDialog</name>
    <message>
        <source>Chat Settings</source>
        <translation>Chat Settings</translation>
    </message>
    <message>
        <source>System prompt:</source>
        <translation>System prompt:</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>System prompt</translation>
    </message>
    <message>
        <source>Temperature:</source>
        <translation>Temperature:</translation>
    </message>
    <message>
        <source>Top-k:</source>
        <translation>Top-k:</translation>
    </message>
    <message>
        <source>Top-p:</source>
        <translation>Top-p:</translation>
    </message>
    <message>
        <source>Min-p:</source>
        <translation>Min-p:</translation>
    </message>
    <message>
        <source>Repeat penalty:</source>
        <translation>Repeat penalty:</translation>
    </message>
    <message>
        <source>Maximum tokens:</source>
        <translation>Maximum tokens:</translation>
    </message>
    <message>
        <source>Seed (-1: random):</source>
        <translation>Seed (-1: random):</translation>
    </message>
    <message>
        <source>Penalize the last tokens:</source>
        <translation>Penalize the last tokens:</translation>
    </message>
    <message>
        <source>Presence penalty:</source>
        <translation>Presence penalty:</translation>
    </message>
    <message>
        <source>Frequency penalty:</source>
        <translation>Frequency penalty:</translation>
    </message>
    <message>
        <source>The maximum is more than the model&apos;s context of %1 tokens: an answer stops when the context is full.</source>
        <translation>The maximum is more than the model&apos;s context of %1 tokens: an answer stops when the context is full.</translation>
    </message>
    <message>
        <source>When the chat outgrows the context:</source>
        <translation>When the chat outgrows the context:</translation>
    </message>
    <message>
        <source>Leave the oldest messages out</source>
        <translation>Leave the oldest messages out</translation>
    </message>
    <message>
        <source>Stop and say so</source>
        <translation>Stop and say so</translation>
    </message>
    <message>
        <source>When the chat outgrows the context</source>
        <translation>When the chat outgrows the context</translation>
    </message>
    <message>
        <source>Context length:</source>
        <translation>Context length:</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>Context length</translation>
    </message>
    <message>
        <source>Applies to every chat with this model. A longer context remembers more of the chat and takes more memory.</source>
        <translation>Applies to every chat with this model. A longer context remembers more of the chat and takes more memory.</translation>
    </message>
    <message>
        <source>Context memory:</source>
        <translation>Context memory:</translation>
    </message>
    <message>
        <source>16-bit, as computed</source>
        <translation>16-bit, as computed</translation>
    </message>
    <message>
        <source>8-bit, about half the memory</source>
        <translation>8-bit, about half the memory</translation>
    </message>
    <message>
        <source>Context memory</source>
        <translation>Context memory</translation>
    </message>
    <message>
        <source>Layers on the GPU keep a 32-bit copy of the context in this computer&apos;s memory.</source>
        <translation>Layers on the GPU keep a 32-bit copy of the context in this computer&apos;s memory.</translation>
    </message>
    <message>
        <source>This model keeps 16-bit: its attention heads do not suit 8-bit blocks.</source>
        <translation>This model keeps 16-bit: its attention heads do not suit 8-bit blocks.</translation>
    </message>
    <message>
        <source>Guess ahead:</source>
        <translation>Guess ahead:</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Off</translation>
    </message>
    <message>
        <source>From the conversation&apos;s own text</source>
        <translation>From the conversation&apos;s own text</translation>
    </message>
    <message>
        <source>With %1 (%2)</source>
        <comment>a draft model and its size</comment>
        <translation>With %1 (%2)</translation>
    </message>
    <message>
        <source>With %1</source>
        <comment>a draft model</comment>
        <translation>With %1</translation>
    </message>
    <message>
        <source>Guess ahead</source>
        <translation>Guess ahead</translation>
    </message>
    <message>
        <source>The model checks several guessed words at once and keeps only what it would have written itself: the same answers, sooner when the guesses are good. A draft model must be a smaller one of the same family; it runs on the processor.</source>
        <translation>The model checks several guessed words at once and keeps only what it would have written itself: the same answers, sooner when the guesses are good. A draft model must be a smaller one of the same family; it runs on the processor.</translation>
    </message>
    <message>
        <source>Reasoning:</source>
        <translation>Reasoning:</translation>
    </message>
    <message>
        <source>The model&apos;s default</source>
        <translation>The model&apos;s default</translation>
    </message>
    <message>
        <source>Low</source>
        <translation>Low</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>Medium</translation>
    </message>
    <message>
        <source>High</source>
        <translation>High</translation>
    </message>
    <message>
        <source>How much the model reasons before it answers</source>
        <translation>How much the model reasons before it answers</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Loading the model…</source>
        <translation>Loading the model…</translation>
    </message>
    <message>
        <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
        <translation>Ask anything. Press Enter to send, Shift+Enter for a new line.</translation>
    </message>
    <message>
        <source>Open a GGUF model to start chatting, or download one from the catalog. Everything runs on this computer.</source>
        <translation>Open a GGUF model to start chatting, or download one from the catalog. Everything runs on this computer.</translation>
    </message>
    <message>
        <source>Browse Models…</source>
        <translation>Browse Models…</translation>
    </message>
    <message>
        <source>Delete Message</source>
        <translation>Delete Message</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Delete</translation>
    </message>
    <message>
        <source>Delete this message? The messages before and after it stay, and it no longer takes up the model&apos;s context.</source>
        <translation>Delete this message? The messages before and after it stay, and it no longer takes up the model&apos;s context.</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>Copied</source>
        <translation>Copied</translation>
    </message>
    <message>
        <source>Copy</source>
        <comment>button: copy code</comment>
        <translation>Copy</translation>
    </message>
    <message>
        <source>Copy the code</source>
        <translation>Copy the code</translation>
    </message>
</context>
<context>
    <name>CommandLine</name>
    <message>
        <source>Chat with large language models on your own computer.</source>
        <translation>Chat with large language models on your own computer.</translation>
    </message>
    <message>
        <source>Print the version and build options, then exit.</source>
        <translation>Print the version and build options, then exit.</translation>
    </message>
    <message>
        <source>Load the model in &lt;file&gt; at start.</source>
        <translation>Load the model in &lt;file&gt; at start.</translation>
    </message>
    <message>
        <source>file</source>
        <translation>file</translation>
    </message>
    <message>
        <source>Keep chats and settings in &lt;dir&gt;.</source>
        <translation>Keep chats and settings in &lt;dir&gt;.</translation>
    </message>
    <message>
        <source>dir</source>
        <translation>dir</translation>
    </message>
    <message>
        <source>Load the model given with --model, answer one short prompt, print the speed and exit.</source>
        <translation>Load the model given with --model, answer one short prompt, print the speed and exit.</translation>
    </message>
    <message>
        <source>--self-test needs a model: add --model &lt;file&gt;.</source>
        <translation>--self-test needs a model: add --model &lt;file&gt;.</translation>
    </message>
    <message>
        <source>Unexpected argument: %1</source>
        <translation>Unexpected argument: %1</translation>
    </message>
    <message>
        <source>Serve the model over an OpenAI-compatible HTTP API without opening a window (with --model, else the last model used).</source>
        <translation>Serve the model over an OpenAI-compatible HTTP API without opening a window (with --model, else the last model used).</translation>
    </message>
    <message>
        <source>With --serve: listen on &lt;address&gt; (default 127.0.0.1, this computer only).</source>
        <translation>With --serve: listen on &lt;address&gt; (default 127.0.0.1, this computer only).</translation>
    </message>
    <message>
        <source>address</source>
        <translation>address</translation>
    </message>
    <message>
        <source>With --serve: listen on &lt;port&gt; (default 8080).</source>
        <translation>With --serve: listen on &lt;port&gt; (default 8080).</translation>
    </message>
    <message>
        <source>port</source>
        <translation>port</translation>
    </message>
    <message>
        <source>With --serve: require &lt;key&gt; from every client (or set HEARTH_API_KEY).</source>
        <translation>With --serve: require &lt;key&gt; from every client (or set HEARTH_API_KEY).</translation>
    </message>
    <message>
        <source>key</source>
        <translation>key</translation>
    </message>
    <message>
        <source>With --serve: at most &lt;n&gt; requests running or waiting (default 8); more are refused with 503.</source>
        <translation>With --serve: at most &lt;n&gt; requests running or waiting (default 8); more are refused with 503.</translation>
    </message>
    <message>
        <source>n</source>
        <translation>n</translation>
    </message>
    <message>
        <source>--port needs a number from 0 to 65535.</source>
        <translation>--port needs a number from 0 to 65535.</translation>
    </message>
    <message>
        <source>--max-queue needs a number from 1 to 1024.</source>
        <translation>--max-queue needs a number from 1 to 1024.</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Write a message…</source>
        <translation>Write a message…</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Message</translation>
    </message>
    <message>
        <source>Stop</source>
        <comment>button: stop generating</comment>
        <translation>Stop</translation>
    </message>
    <message>
        <source>Send</source>
        <comment>button: send the message</comment>
        <translation>Send</translation>
    </message>
    <message>
        <source>Context used</source>
        <translation>Context used</translation>
    </message>
    <message>
        <source>Context almost full: %1 of %2 tokens. Start a new chat soon.</source>
        <translation>Context almost full: %1 of %2 tokens. Start a new chat soon.</translation>
    </message>
    <message>
        <source>Context: %1 of %2 tokens</source>
        <translation>Context: %1 of %2 tokens</translation>
    </message>
    <message>
        <source>Stop the answer</source>
        <translation>Stop the answer</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>Send the message</translation>
    </message>
    <message>
        <source>Open a model first</source>
        <translation>Open a model first</translation>
    </message>
</context>
<context>
    <name>ConvertPanel</name>
    <message>
        <source>Choose the model folder</source>
        <translation>Choose the model folder</translation>
    </message>
    <message>
        <source>Choose the predictor folder</source>
        <translation>Choose the predictor folder</translation>
    </message>
    <message>
        <source>Choose the activation statistics folder</source>
        <translation>Choose the activation statistics folder</translation>
    </message>
    <message>
        <source>Choose a GGUF model to quantize</source>
        <translation>Choose a GGUF model to quantize</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF models (*.gguf)</translation>
    </message>
    <message>
        <source>Save the converted model as</source>
        <translation>Save the converted model as</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Hugging Face model folder, or a .gguf file</source>
        <translation>Hugging Face model folder, or a .gguf file</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Folder…</translation>
    </message>
    <message>
        <source>GGUF file…</source>
        <translation>GGUF file…</translation>
    </message>
    <message>
        <source>Predictors</source>
        <translation>Predictors</translation>
    </message>
    <message>
        <source>Optional: folder with model_&lt;n&gt;.pt files (sparse model)</source>
        <translation>Optional: folder with model_&lt;n&gt;.pt files (sparse model)</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>Activations</translation>
    </message>
    <message>
        <source>Optional: folder with activation_&lt;n&gt;.pt files</source>
        <translation>Optional: folder with activation_&lt;n&gt;.pt files</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Type</translation>
    </message>
    <message>
        <source>near full quality</source>
        <translation>near full quality</translation>
    </message>
    <message>
        <source>full quality</source>
        <translation>full quality</translation>
    </message>
    <message>
        <source>Save as</source>
        <translation>Save as</translation>
    </message>
    <message>
        <source>Where the .gguf file goes</source>
        <translation>Where the .gguf file goes</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Browse…</translation>
    </message>
    <message>
        <source>The file exists: replace it</source>
        <translation>The file exists: replace it</translation>
    </message>
    <message>
        <source>Start</source>
        <comment>button: start converting</comment>
        <translation>Start</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop converting</comment>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>%1 (%2 %)  ·  output about %3</source>
        <translation>%1 (%2 %)  ·  output about %3</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1 (%2 %)</translation>
    </message>
    <message>
        <source>close to Q8_0, a quarter smaller</source>
        <translation>close to Q8_0, a quarter smaller</translation>
    </message>
    <message>
        <source>high quality</source>
        <translation>high quality</translation>
    </message>
    <message>
        <source>the usual choice: good quality, small</source>
        <translation>the usual choice: good quality, small</translation>
    </message>
    <message>
        <source>small; sparse models need it or Q8_0</source>
        <translation>small; sparse models need it or Q8_0</translation>
    </message>
    <message>
        <source>smallest, for small GPUs</source>
        <translation>smallest, for small GPUs</translation>
    </message>
    <message>
        <source>Choose a calibration text</source>
        <translation>Choose a calibration text</translation>
    </message>
    <message>
        <source>Text files (*.txt *.md)</source>
        <translation>Text files (*.txt *.md)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>All files (*)</translation>
    </message>
    <message>
        <source>Convert, quantize or make a model sparse</source>
        <translation>Convert, quantize or make a model sparse</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>Calibration</translation>
    </message>
    <message>
        <source>Optional: a text file to calibrate on (default: the built-in text)</source>
        <translation>Optional: a text file to calibrate on (default: the built-in text)</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>File…</translation>
    </message>
    <message>
        <source>skips the neurons that matter least (ReLU: predictors, SwiGLU: thresholds)</source>
        <translation>skips the neurons that matter least (ReLU: predictors, SwiGLU: thresholds)</translation>
    </message>
</context>
<context>
    <name>DialogProblem</name>
    <message>
        <source>Cannot open the file chooser</source>
        <translation>Cannot open the file chooser</translation>
    </message>
</context>
<context>
    <name>EngineError</name>
    <message>
        <source>A setting or request is out of range.</source>
        <translation>A setting or request is out of range.</translation>
    </message>
    <message>
        <source>The system refused to read or write a file (is the disk full, or was the file moved?).</source>
        <translation>The system refused to read or write a file (is the disk full, or was the file moved?).</translation>
    </message>
    <message>
        <source>The file is damaged or incomplete.</source>
        <translation>The file is damaged or incomplete.</translation>
    </message>
    <message>
        <source>The file uses something Hearth cannot run yet.</source>
        <translation>The file uses something Hearth cannot run yet.</translation>
    </message>
    <message>
        <source>There is not enough memory.</source>
        <translation>There is not enough memory.</translation>
    </message>
    <message>
        <source>It was cancelled.</source>
        <translation>It was cancelled.</translation>
    </message>
    <message>
        <source>The conversation does not fit the model&apos;s context.</source>
        <translation>The conversation does not fit the model&apos;s context.</translation>
    </message>
    <message>
        <source>The input asks for more work or memory than Hearth allows.</source>
        <translation>The input asks for more work or memory than Hearth allows.</translation>
    </message>
    <message>
        <source>The result is not as good as asked for.</source>
        <translation>The result is not as good as asked for.</translation>
    </message>
    <message>
        <source>%1 (Engine: %2)</source>
        <comment>a sentence, then the engine&apos;s English words</comment>
        <translation>%1 (Engine: %2)</translation>
    </message>
    <message>
        <source>Hearth met an internal error; please report it with these details.</source>
        <translation>Hearth met an internal error; please report it with these details.</translation>
    </message>
</context>
<context>
    <name>FitBadge</name>
    <message>
        <source>~%1 tokens/s</source>
        <translation>~%1 tokens/s</translation>
    </message>
    <message>
        <source>Unknown fit</source>
        <translation>Unknown fit</translation>
    </message>
    <message>
        <source>Does not fit</source>
        <comment>fit badge</comment>
        <translation>Does not fit</translation>
    </message>
    <message>
        <source>Needs about %1 of RAM; this computer has %2.</source>
        <translation>Needs about %1 of RAM; this computer has %2.</translation>
    </message>
    <message>
        <source>Fully on GPU</source>
        <comment>fit badge</comment>
        <translation>Fully on GPU</translation>
    </message>
    <message>
        <source>Everything fits in GPU memory (%1 used), %2.</source>
        <translation>Everything fits in GPU memory (%1 used), %2.</translation>
    </message>
    <message>
        <source>CPU only, %1</source>
        <comment>fit badge</comment>
        <translation>CPU only, %1</translation>
    </message>
    <message>
        <source>The GPU&apos;s free memory is too small for any part of this model.</source>
        <translation>The GPU&apos;s free memory is too small for any part of this model.</translation>
    </message>
    <message>
        <source>No GPU found: the model runs on the processor.</source>
        <translation>No GPU found: the model runs on the processor.</translation>
    </message>
    <message>
        <source>Hybrid, %1</source>
        <comment>fit badge</comment>
        <translation>Hybrid, %1</translation>
    </message>
    <message>
        <source>%1 of %2 attention layers and %3% of the FFN neurons on the GPU.</source>
        <translation>%1 of %2 attention layers and %3% of the FFN neurons on the GPU.</translation>
    </message>
    <message>
        <source>%1 of %2 attention layers and %3 of %4 experts on the GPU.</source>
        <translation>%1 of %2 attention layers and %3 of %4 experts on the GPU.</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>%1 — Hearth</source>
        <comment>window title, %1 is the model name</comment>
        <translation>%1 — Hearth</translation>
    </message>
    <message>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <source>Open Model…</source>
        <translation>Open Model…</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>Open a model file</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>Interface language</translation>
    </message>
    <message>
        <source>Open a Model</source>
        <translation>Open a Model</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF models (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>All files (*)</translation>
    </message>
    <message>
        <source>CPU (%1)</source>
        <comment>status bar: compute mode, %1 is the kernel set such as avx2</comment>
        <translation>CPU (%1)</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>Recent</translation>
    </message>
    <message>
        <source>Recently used models</source>
        <translation>Recently used models</translation>
    </message>
    <message>
        <source>Loading progress</source>
        <translation>Loading progress</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancel loading the model</source>
        <translation>Cancel loading the model</translation>
    </message>
    <message>
        <source>Chat Settings…</source>
        <translation>Chat Settings…</translation>
    </message>
    <message>
        <source>System prompt and sampling of this chat</source>
        <translation>System prompt and sampling of this chat</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>Settings…</translation>
    </message>
    <message>
        <source>Application settings</source>
        <translation>Application settings</translation>
    </message>
    <message>
        <source>Deleted “%1”.</source>
        <translation>Deleted “%1”.</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Undo</translation>
    </message>
    <message>
        <source>Undo deleting the chat</source>
        <translation>Undo deleting the chat</translation>
    </message>
    <message>
        <source>Export Chat</source>
        <translation>Export Chat</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON files (*.json)</translation>
    </message>
    <message>
        <source>Markdown files (*.md)</source>
        <translation>Markdown files (*.md)</translation>
    </message>
    <message>
        <source>GPU + CPU (%1)</source>
        <comment>status bar: hybrid compute mode, %1 is the CPU kernel set</comment>
        <translation>GPU + CPU (%1)</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Save</translation>
    </message>
    <message>
        <source>Saved the chat to %1.</source>
        <translation>Saved the chat to %1.</translation>
    </message>
    <message>
        <source>Server…</source>
        <translation>Server…</translation>
    </message>
    <message>
        <source>Chat with a model on an OpenAI-compatible server</source>
        <translation>Chat with a model on an OpenAI-compatible server</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>Edited message</source>
        <translation>Edited message</translation>
    </message>
    <message>
        <source>Send Edited</source>
        <translation>Send Edited</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>…</source>
        <comment>placeholder while the first token is computed</comment>
        <translation>…</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Failed: %1</translation>
    </message>
    <message>
        <source>Stopped before the end.</source>
        <translation>Stopped before the end.</translation>
    </message>
    <message>
        <source>Previous alternative</source>
        <translation>Previous alternative</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <comment>alternative answers: this one of how many</comment>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Next alternative</source>
        <translation>Next alternative</translation>
    </message>
    <message>
        <source>Copy</source>
        <comment>button: copy the message</comment>
        <translation>Copy</translation>
    </message>
    <message>
        <source>Copy the message</source>
        <translation>Copy the message</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>Regenerate</translation>
    </message>
    <message>
        <source>Answer again</source>
        <translation>Answer again</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Edit</translation>
    </message>
    <message>
        <source>Edit and resend the message</source>
        <translation>Edit and resend the message</translation>
    </message>
    <message>
        <source>%1 tokens · %2 tokens/s · first token after %3 ms</source>
        <translation>%1 tokens · %2 tokens/s · first token after %3 ms</translation>
    </message>
    <message>
        <source>Interrupted: Hearth closed before this answer was finished.</source>
        <translation>Interrupted: Hearth closed before this answer was finished.</translation>
    </message>
    <message>
        <source>Delete</source>
        <comment>button: delete this one message</comment>
        <translation>Delete</translation>
    </message>
    <message>
        <source>Delete this message; the rest of the chat stays</source>
        <translation>Delete this message; the rest of the chat stays</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>Thinking…</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>Reasoning</translation>
    </message>
    <message>
        <source>Hide the reasoning</source>
        <translation>Hide the reasoning</translation>
    </message>
    <message>
        <source>Show the reasoning</source>
        <translation>Show the reasoning</translation>
    </message>
    <message>
        <source>Cut off at the length limit: Continue lets it go on; raise “Maximum tokens” in Chat Settings for longer answers.</source>
        <translation>Cut off at the length limit: Continue lets it go on; raise “Maximum tokens” in Chat Settings for longer answers.</translation>
    </message>
    <message>
        <source>Continue</source>
        <comment>button: let a cut-off answer go on</comment>
        <translation>Continue</translation>
    </message>
    <message>
        <source>Let the answer go on where it ended</source>
        <translation>Let the answer go on where it ended</translation>
    </message>
    <message>
        <source>Cut off: the conversation filled the model&apos;s context. Continue goes on without the oldest messages where Chat Settings lets it leave them out; a longer context or a new chat gives more room.</source>
        <translation>Cut off: the conversation filled the model&apos;s context. Continue goes on without the oldest messages where Chat Settings lets it leave them out; a longer context or a new chat gives more room.</translation>
    </message>
</context>
<context>
    <name>ModelsCatalogSection</name>
    <message>
        <source>Filter the catalog…</source>
        <translation>Filter the catalog…</translation>
    </message>
    <message>
        <source>Filter the catalog</source>
        <translation>Filter the catalog</translation>
    </message>
    <message>
        <source>Fit for:</source>
        <translation>Fit for:</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>This computer</translation>
    </message>
    <message>
        <source>A GPU of %1 GB</source>
        <translation>A GPU of %1 GB</translation>
    </message>
    <message>
        <source>Show how the models fit this computer or a GPU of another size</source>
        <translation>Show how the models fit this computer or a GPU of another size</translation>
    </message>
    <message>
        <source>Sparse</source>
        <translation>Sparse</translation>
    </message>
    <message>
        <source>Dense</source>
        <translation>Dense</translation>
    </message>
    <message>
        <source>Predictors available: hot neurons on the GPU, cold ones on the CPU.</source>
        <translation>Predictors available: hot neurons on the GPU, cold ones on the CPU.</translation>
    </message>
    <message>
        <source>No predictors: every neuron is computed.</source>
        <translation>No predictors: every neuron is computed.</translation>
    </message>
    <message>
        <source>GPU Memory…</source>
        <translation>GPU Memory…</translation>
    </message>
    <message>
        <source>Plan the GPU memory of %1</source>
        <translation>Plan the GPU memory of %1</translation>
    </message>
    <message>
        <source>%1 · %2 parameters · %3 · licence: %4</source>
        <translation>%1 · %2 parameters · %3 · licence: %4</translation>
    </message>
    <message>
        <source>Published as a checkpoint: it is converted to GGUF after downloading.</source>
        <translation>Published as a checkpoint: it is converted to GGUF after downloading.</translation>
    </message>
    <message>
        <source>All files (%1)</source>
        <translation>All files (%1)</translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>button: download a model file</comment>
        <translation>Download</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>Download %1</translation>
    </message>
    <message>
        <source>No model in the catalog matches.</source>
        <translation>No model in the catalog matches.</translation>
    </message>
    <message>
        <source>Mixture of experts</source>
        <translation>Mixture of experts</translation>
    </message>
    <message>
        <source>Each token runs %1 of %2 experts a layer; only their weights are read.</source>
        <translation>Each token runs %1 of %2 experts a layer; only their weights are read.</translation>
    </message>
</context>
<context>
    <name>ModelsDownloadsSection</name>
    <message>
        <source>Downloads are checked against the repository&apos;s SHA-256 before they are offered for loading.</source>
        <translation>Downloads are checked against the repository&apos;s SHA-256 before they are offered for loading.</translation>
    </message>
    <message>
        <source>Clear Finished</source>
        <translation>Clear Finished</translation>
    </message>
    <message>
        <source>Remove finished, failed and cancelled downloads from the list</source>
        <translation>Remove finished, failed and cancelled downloads from the list</translation>
    </message>
    <message>
        <source>%1 from %2</source>
        <translation>%1 from %2</translation>
    </message>
    <message>
        <source>Progress of %1</source>
        <translation>Progress of %1</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Pause downloading %1</source>
        <translation>Pause downloading %1</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Resume</translation>
    </message>
    <message>
        <source>Resume downloading %1</source>
        <translation>Resume downloading %1</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Retry</translation>
    </message>
    <message>
        <source>Try downloading %1 again</source>
        <translation>Try downloading %1 again</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop a download and delete its partial file</comment>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancel downloading %1</source>
        <translation>Cancel downloading %1</translation>
    </message>
    <message>
        <source>Remove</source>
        <comment>button: forget a download; a finished file stays on disk</comment>
        <translation>Remove</translation>
    </message>
    <message>
        <source>Remove %1 from the list</source>
        <translation>Remove %1 from the list</translation>
    </message>
    <message>
        <source>Nothing downloaded yet. Pick a model in the catalog or search Hugging Face.</source>
        <translation>Nothing downloaded yet. Pick a model in the catalog or search Hugging Face.</translation>
    </message>
</context>
<context>
    <name>ModelsInstalledSection</name>
    <message>
        <source>Verified downloads and imported model files. Unfinished or unverified downloads are not listed.</source>
        <translation>Verified downloads and imported model files. Unfinished or unverified downloads are not listed.</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>Import…</translation>
    </message>
    <message>
        <source>Add a GGUF model file from this computer</source>
        <translation>Add a GGUF model file from this computer</translation>
    </message>
    <message>
        <source>%1 (loaded)</source>
        <translation>%1 (loaded)</translation>
    </message>
    <message>
        <source>Sparse</source>
        <translation>Sparse</translation>
    </message>
    <message>
        <source>Dense</source>
        <translation>Dense</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>imported</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>downloaded</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>Reload</translation>
    </message>
    <message>
        <source>Load</source>
        <comment>button: load this model for chatting</comment>
        <translation>Load</translation>
    </message>
    <message>
        <source>Load %1</source>
        <translation>Load %1</translation>
    </message>
    <message>
        <source>GPU Memory…</source>
        <translation>GPU Memory…</translation>
    </message>
    <message>
        <source>Plan the GPU memory of %1</source>
        <translation>Plan the GPU memory of %1</translation>
    </message>
    <message>
        <source>Show in Folder</source>
        <translation>Show in Folder</translation>
    </message>
    <message>
        <source>Open the folder that holds %1</source>
        <translation>Open the folder that holds %1</translation>
    </message>
    <message>
        <source>Remove from List</source>
        <translation>Remove from List</translation>
    </message>
    <message>
        <source>Remove %1 from the list; the file stays on disk</source>
        <translation>Remove %1 from the list; the file stays on disk</translation>
    </message>
    <message>
        <source>No models yet. Download one, or import a GGUF file you already have.</source>
        <translation>No models yet. Download one, or import a GGUF file you already have.</translation>
    </message>
    <message>
        <source>Import a Model</source>
        <translation>Import a Model</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF models (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>All files (*)</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 · %4 · %5</source>
        <translation>%1 · %2 · %3 · %4 · %5</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n layer</numerusform>
            <numerusform>%n layers</numerusform>
        </translation>
    </message>
    <message>
        <source>Make Sparse…</source>
        <translation>Make Sparse…</translation>
    </message>
    <message>
        <source>Make %1 sparse, so that it skips the neurons that matter least</source>
        <translation>Make %1 sparse, so that it skips the neurons that matter least</translation>
    </message>
    <message>
        <source>Delete…</source>
        <comment>button: delete a downloaded model from the disk</comment>
        <translation>Delete…</translation>
    </message>
    <message>
        <source>Delete %1 from the disk</source>
        <translation>Delete %1 from the disk</translation>
    </message>
    <message>
        <source>Delete Model</source>
        <translation>Delete Model</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Delete</translation>
    </message>
    <message>
        <source>Delete %1? Its file is removed from the disk; using it again means downloading it again.</source>
        <translation>Delete %1? Its file is removed from the disk; using it again means downloading it again.</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <source>Models</source>
        <translation>Models</translation>
    </message>
    <message>
        <source>Back to Chat</source>
        <translation>Back to Chat</translation>
    </message>
    <message>
        <source>Close the models page and return to the chat</source>
        <translation>Close the models page and return to the chat</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>Catalog</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>Search</translation>
    </message>
    <message>
        <source>Downloads (%1)</source>
        <translation>Downloads (%1)</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>Downloads</translation>
    </message>
    <message>
        <source>Installed (%1)</source>
        <translation>Installed (%1)</translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation>VRAM</translation>
    </message>
    <message>
        <source>Convert</source>
        <translation>Convert</translation>
    </message>
</context>
<context>
    <name>ModelsSearchSection</name>
    <message>
        <source>Sparse</source>
        <comment>search result: runs with hot/cold neuron placement</comment>
        <translation>Sparse</translation>
    </message>
    <message>
        <source>Dense only</source>
        <comment>search result: runs without predictors</comment>
        <translation>Dense only</translation>
    </message>
    <message>
        <source>Unsupported</source>
        <comment>search result: Hearth cannot run it</comment>
        <translation>Unsupported</translation>
    </message>
    <message>
        <source>Search Hugging Face, e.g. ReluLLaMA or PowerInfer</source>
        <translation>Search Hugging Face, e.g. ReluLLaMA or PowerInfer</translation>
    </message>
    <message>
        <source>Search models on Hugging Face</source>
        <translation>Search models on Hugging Face</translation>
    </message>
    <message>
        <source>Search</source>
        <comment>button: search Hugging Face</comment>
        <translation>Search</translation>
    </message>
    <message>
        <source>%1 downloads · %2 likes</source>
        <translation>%1 downloads · %2 likes</translation>
    </message>
    <message>
        <source>Search for a model by name. Results say whether Hearth runs them with hot neurons on the GPU (sparse), without (dense only), or not at all.</source>
        <translation>Search for a model by name. Results say whether Hearth runs them with hot neurons on the GPU (sparse), without (dense only), or not at all.</translation>
    </message>
    <message>
        <source>Files of %1</source>
        <translation>Files of %1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>button: download a model file</comment>
        <translation>Download</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>Download %1</translation>
    </message>
    <message>
        <source>No files listed.</source>
        <translation>No files listed.</translation>
    </message>
</context>
<context>
    <name>ModelsVramSection</name>
    <message>
        <source>A plan from the catalog&apos;s figures; download the model to run it.</source>
        <translation>A plan from the catalog&apos;s figures; download the model to run it.</translation>
    </message>
    <message>
        <source>Load a model, or choose “GPU Memory…” for an installed one, to plan where its layers run.</source>
        <translation>Load a model, or choose “GPU Memory…” for an installed one, to plan where its layers run.</translation>
    </message>
    <message>
        <source>Apply places the running model again with this budget; the conversation stays.</source>
        <translation>Apply places the running model again with this budget; the conversation stays.</translation>
    </message>
    <message>
        <source>This model is not running: Apply remembers the budget for its next load.</source>
        <translation>This model is not running: Apply remembers the budget for its next load.</translation>
    </message>
    <message>
        <source>Placing the model again…</source>
        <translation>Placing the model again…</translation>
    </message>
    <message>
        <source>Running now: %1</source>
        <translation>Running now: %1</translation>
    </message>
    <message>
        <source>Reading the model file…</source>
        <translation>Reading the model file…</translation>
    </message>
    <message>
        <source>The chat uses “%1” on the server at %2: it runs in that server&apos;s memory, so there is no GPU budget to plan here.</source>
        <translation>The chat uses “%1” on the server at %2: it runs in that server&apos;s memory, so there is no GPU budget to plan here.</translation>
    </message>
    <message>
        <source>Show the Running Model</source>
        <translation>Show the Running Model</translation>
    </message>
</context>
<context>
    <name>Placement</name>
    <message>
        <source>CPU only</source>
        <translation>CPU only</translation>
    </message>
    <message>
        <source>CPU only: the GPU %1 failed</source>
        <translation>CPU only: the GPU %1 failed</translation>
    </message>
    <message>
        <source>GPU %1: %2 of %3 FFN neurons hot</source>
        <translation>GPU %1: %2 of %3 FFN neurons hot</translation>
    </message>
    <message numerus="yes">
        <source>GPU %1: %2 of %n layer(s)</source>
        <translation>
            <numerusform>GPU %1: %2 of %n layer</numerusform>
            <numerusform>GPU %1: %2 of %n layers</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU memory budget: %1</source>
        <translation>GPU memory budget: %1</translation>
    </message>
    <message>
        <source>Engine: %1</source>
        <translation>Engine: %1</translation>
    </message>
    <message numerus="yes">
        <source>GPU %1: %2 of %3 experts, attention of %4 of %n layer(s)</source>
        <translation>
            <numerusform>GPU %1: %2 of %3 experts, attention of %4 of %n layer</numerusform>
            <numerusform>GPU %1: %2 of %3 experts, attention of %4 of %n layers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RemoteServerDialog</name>
    <message>
        <source>Connect to a Server</source>
        <translation>Connect to a Server</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>Connect</translation>
    </message>
    <message>
        <source>The server lists no models.</source>
        <translation>The server lists no models.</translation>
    </message>
    <message>
        <source>Server address:</source>
        <translation>Server address:</translation>
    </message>
    <message>
        <source>Address of the OpenAI-compatible server</source>
        <translation>Address of the OpenAI-compatible server</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API key:</translation>
    </message>
    <message>
        <source>None</source>
        <translation>None</translation>
    </message>
    <message>
        <source>API key for the server</source>
        <translation>API key for the server</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Model:</translation>
    </message>
    <message>
        <source>Model on the server</source>
        <translation>Model on the server</translation>
    </message>
    <message>
        <source>Asking…</source>
        <translation>Asking…</translation>
    </message>
    <message>
        <source>List Models</source>
        <translation>List Models</translation>
    </message>
    <message>
        <source>Ask the server which models it has</source>
        <translation>Ask the server which models it has</translation>
    </message>
    <message>
        <source>The chat sends its messages to this server and stores the answers here, like any other. The local model is unloaded while you use it.</source>
        <translation>The chat sends its messages to this server and stores the answers here, like any other. The local model is unloaded while you use it.</translation>
    </message>
</context>
<context>
    <name>ServeCommand</name>
    <message>
        <source>Model: %1 (%2), context of %3 tokens</source>
        <translation>Model: %1 (%2), context of %3 tokens</translation>
    </message>
    <message>
        <source>Placement: %1</source>
        <translation>Placement: %1</translation>
    </message>
    <message>
        <source>Serving the OpenAI-compatible API at %1</source>
        <translation>Serving the OpenAI-compatible API at %1</translation>
    </message>
    <message>
        <source>No model given (--model FILE) and none used before: serving at %1 without one; requests get 503.</source>
        <translation>No model given (--model FILE) and none used before: serving at %1 without one; requests get 503.</translation>
    </message>
    <message>
        <source>Stopping the server.</source>
        <translation>Stopping the server.</translation>
    </message>
    <message>
        <source>Guessing ahead from the conversation&apos;s own text</source>
        <translation>Guessing ahead from the conversation&apos;s own text</translation>
    </message>
    <message>
        <source>Guessing ahead with %1</source>
        <translation>Guessing ahead with %1</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Settings</translation>
    </message>
    <message>
        <source>Theme:</source>
        <translation>Theme:</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>Follow the system</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Light</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dark</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>Theme</translation>
    </message>
    <message>
        <source>Font size:</source>
        <translation>Font size:</translation>
    </message>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>Font size in points</source>
        <translation>Font size in points</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>Language:</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>Interface language</translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation>Threads:</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automatic</translation>
    </message>
    <message>
        <source>Engine threads</source>
        <translation>Engine threads</translation>
    </message>
    <message>
        <source>Data folder:</source>
        <translation>Data folder:</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>Data folder</translation>
    </message>
    <message>
        <source>A new data folder is used from the next start.</source>
        <translation>A new data folder is used from the next start.</translation>
    </message>
    <message>
        <source>Default system prompt:</source>
        <translation>Default system prompt:</translation>
    </message>
    <message>
        <source>Default system prompt</source>
        <translation>Default system prompt</translation>
    </message>
    <message>
        <source>Default temperature:</source>
        <translation>Default temperature:</translation>
    </message>
    <message>
        <source>Default temperature</source>
        <translation>Default temperature</translation>
    </message>
    <message>
        <source>Default answer length:</source>
        <translation>Default answer length:</translation>
    </message>
    <message>
        <source>Default maximum tokens per answer</source>
        <translation>Default maximum tokens per answer</translation>
    </message>
    <message>
        <source>Hugging Face mirror:</source>
        <translation>Hugging Face mirror:</translation>
    </message>
    <message>
        <source>Hugging Face endpoint or mirror address</source>
        <translation>Hugging Face endpoint or mirror address</translation>
    </message>
    <message>
        <source>Hugging Face token:</source>
        <translation>Hugging Face token:</translation>
    </message>
    <message>
        <source>For gated models; empty: HF_TOKEN or none</source>
        <translation>For gated models; empty: HF_TOKEN or none</translation>
    </message>
    <message>
        <source>Hugging Face access token</source>
        <translation>Hugging Face access token</translation>
    </message>
    <message>
        <source>%1 pt</source>
        <comment>font size in points</comment>
        <translation>%1 pt</translation>
    </message>
    <message>
        <source>API server:</source>
        <translation>API server:</translation>
    </message>
    <message>
        <source>Serve the loaded model to other programs (OpenAI-compatible)</source>
        <translation>Serve the loaded model to other programs (OpenAI-compatible)</translation>
    </message>
    <message>
        <source>Server address:</source>
        <translation>Server address:</translation>
    </message>
    <message>
        <source>Address the server listens on</source>
        <translation>Address the server listens on</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>Port:</translation>
    </message>
    <message>
        <source>Port the server listens on</source>
        <translation>Port the server listens on</translation>
    </message>
    <message>
        <source>Server API key:</source>
        <translation>Server API key:</translation>
    </message>
    <message>
        <source>None</source>
        <translation>None</translation>
    </message>
    <message>
        <source>API key clients must send</source>
        <translation>API key clients must send</translation>
    </message>
    <message>
        <source>Programs on this computer reach the model at %1.</source>
        <translation>Programs on this computer reach the model at %1.</translation>
    </message>
    <message>
        <source>Other computers can reach the model at %1 with the key.</source>
        <translation>Other computers can reach the model at %1 with the key.</translation>
    </message>
    <message>
        <source>Other computers can reach the model at %1, and no key is set: anyone on the network may use it.</source>
        <translation>Other computers can reach the model at %1, and no key is set: anyone on the network may use it.</translation>
    </message>
    <message>
        <source>Off. When on, programs use the URL shown here as their OpenAI base URL.</source>
        <translation>Off. When on, programs use the URL shown here as their OpenAI base URL.</translation>
    </message>
    <message>
        <source>Sparse models:</source>
        <translation>Sparse models:</translation>
    </message>
    <message>
        <source>Faster prompts</source>
        <translation>Faster prompts</translation>
    </message>
    <message>
        <source>Faster prompts for sparse models</source>
        <translation>Faster prompts for sparse models</translation>
    </message>
    <message>
        <source>Keeps their feed-forward weights twice in memory, from the next load.</source>
        <translation>Keeps their feed-forward weights twice in memory, from the next load.</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>New Chat</source>
        <translation>New Chat</translation>
    </message>
    <message>
        <source>Start a new conversation</source>
        <translation>Start a new conversation</translation>
    </message>
    <message>
        <source>Search chats…</source>
        <translation>Search chats…</translation>
    </message>
    <message>
        <source>Search all conversations</source>
        <translation>Search all conversations</translation>
    </message>
    <message>
        <source>Chat actions</source>
        <translation>Chat actions</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>Rename…</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>Export as Markdown…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>Export as JSON…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Delete</translation>
    </message>
    <message>
        <source>No chat matches.</source>
        <translation>No chat matches.</translation>
    </message>
    <message>
        <source>No chats yet.</source>
        <translation>No chats yet.</translation>
    </message>
    <message>
        <source>Rename Chat</source>
        <translation>Rename Chat</translation>
    </message>
    <message>
        <source>Chat title</source>
        <translation>Chat title</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Models</translation>
    </message>
    <message>
        <source>Download, import and manage models</source>
        <translation>Download, import and manage models</translation>
    </message>
    <message>
        <source>Models (Ctrl+M)</source>
        <translation>Models (Ctrl+M)</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>Model: %1 (%2)</source>
        <translation>Model: %1 (%2)</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>No model loaded</translation>
    </message>
    <message>
        <source>Compute mode</source>
        <translation>Compute mode</translation>
    </message>
    <message>
        <source>Answering…</source>
        <translation>Answering…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Ready</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>Idle</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 tokens/s</translation>
    </message>
    <message>
        <source>Speed of the last answer</source>
        <translation>Speed of the last answer</translation>
    </message>
    <message>
        <source>Loading… %1%</source>
        <translation>Loading… %1%</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop loading the model</comment>
        <translation>Cancel</translation>
    </message>
    <message>
        <source>Cancel loading the model</source>
        <translation>Cancel loading the model</translation>
    </message>
</context>
<context>
    <name>VramPanel</name>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>GPU memory for %1</source>
        <translation>GPU memory for %1</translation>
    </message>
    <message>
        <source>GPU memory budget</source>
        <translation>GPU memory budget</translation>
    </message>
    <message>
        <source>No GPU found on this computer. Planning for a GPU of %1 GB.</source>
        <translation>No GPU found on this computer. Planning for a GPU of %1 GB.</translation>
    </message>
    <message>
        <source>No GPU found on this computer: models run on the processor.</source>
        <translation>No GPU found on this computer: models run on the processor.</translation>
    </message>
    <message>
        <source>Plan for a GPU of:</source>
        <translation>Plan for a GPU of:</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>Plan for a GPU of %1 GB</source>
        <translation>Plan for a GPU of %1 GB</translation>
    </message>
    <message>
        <source>Auto</source>
        <comment>VRAM budget follows the free GPU memory</comment>
        <translation>Auto</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>Attention</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>FFN neurons: hot on GPU / cold on CPU</source>
        <translation>FFN neurons: hot on GPU / cold on CPU</translation>
    </message>
    <message>
        <source>L%1</source>
        <comment>layer number</comment>
        <translation>L%1</translation>
    </message>
    <message>
        <source>Attention on the GPU</source>
        <translation>Attention on the GPU</translation>
    </message>
    <message>
        <source>Attention on the CPU</source>
        <translation>Attention on the CPU</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 neurons on the GPU</source>
        <translation>Layer %1: %2 of %3 neurons on the GPU</translation>
    </message>
    <message>
        <source>Apply</source>
        <comment>button: use this GPU memory budget</comment>
        <translation>Apply</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 experts on the GPU</source>
        <translation>Layer %1: %2 of %3 experts on the GPU</translation>
    </message>
</context>
<context>
    <name>hearth::BlockListModel</name>
    <message>
        <source>Code</source>
        <comment>header of a code block without a language</comment>
        <translation>Code</translation>
    </message>
</context>
<context>
    <name>hearth::ChatExport</name>
    <message>
        <source>User</source>
        <translation>User</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistant</translation>
    </message>
    <message>
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 tokens</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 tokens/s</translation>
    </message>
    <message>
        <source>first token after %1 ms</source>
        <translation>first token after %1 ms</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>interrupted</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>failed: %1</translation>
    </message>
    <message>
        <source>Untitled chat</source>
        <translation>Untitled chat</translation>
    </message>
    <message>
        <source>*Model:* `%1`</source>
        <translation>*Model:* `%1`</translation>
    </message>
    <message>
        <source>*Created:* %1</source>
        <translation>*Created:* %1</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>System prompt</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>stopped</translation>
    </message>
    <message>
        <source>cut off at the length limit</source>
        <translation>cut off at the length limit</translation>
    </message>
    <message>
        <source>cut off: the context was full</source>
        <translation>cut off: the context was full</translation>
    </message>
</context>
<context>
    <name>hearth::ChatStore</name>
    <message>
        <source>The chat database is locked by another program (%1). Is Hearth running twice?</source>
        <translation>The chat database is locked by another program (%1). Is Hearth running twice?</translation>
    </message>
    <message>
        <source>The chat database is read-only (%1).</source>
        <translation>The chat database is read-only (%1).</translation>
    </message>
    <message>
        <source>The disk holding the chat database is full (%1).</source>
        <translation>The disk holding the chat database is full (%1).</translation>
    </message>
    <message>
        <source>The chat database is damaged or is not a database (%1).</source>
        <translation>The chat database is damaged or is not a database (%1).</translation>
    </message>
    <message>
        <source>The chat database cannot be opened (%1). Check the folder&apos;s permissions.</source>
        <translation>The chat database cannot be opened (%1). Check the folder&apos;s permissions.</translation>
    </message>
    <message>
        <source>The disk reported an error while reading or writing the chat database (%1).</source>
        <translation>The disk reported an error while reading or writing the chat database (%1).</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation>Opening %1</translation>
    </message>
    <message>
        <source>The chat database is not open.</source>
        <translation>The chat database is not open.</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only: changes cannot be saved.</source>
        <translation>The chat database %1 is read-only: changes cannot be saved.</translation>
    </message>
    <message>
        <source>Reading %1</source>
        <translation>Reading %1</translation>
    </message>
    <message>
        <source>The chat database %1 was written by a newer version of Hearth (schema %2; this version understands up to %3). It was left untouched; please update Hearth.</source>
        <translation>The chat database %1 was written by a newer version of Hearth (schema %2; this version understands up to %3). It was left untouched; please update Hearth.</translation>
    </message>
    <message>
        <source>The chat database %1 cannot be written.</source>
        <translation>The chat database %1 cannot be written.</translation>
    </message>
    <message>
        <source>Backing up %1 before upgrading it</source>
        <translation>Backing up %1 before upgrading it</translation>
    </message>
    <message>
        <source>Upgrading %1 to schema %2</source>
        <translation>Upgrading %1 to schema %2</translation>
    </message>
    <message>
        <source>Recovering answers interrupted in %1</source>
        <translation>Recovering answers interrupted in %1</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only and needs an upgrade (schema %2, this version uses %3): it cannot be opened until it is writable.</source>
        <translation>The chat database %1 is read-only and needs an upgrade (schema %2, this version uses %3): it cannot be opened until it is writable.</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only: your chats can be read, but nothing new will be saved.</source>
        <translation>The chat database %1 is read-only: your chats can be read, but nothing new will be saved.</translation>
    </message>
    <message>
        <source>Creating a conversation</source>
        <translation>Creating a conversation</translation>
    </message>
    <message>
        <source>Reading conversations</source>
        <translation>Reading conversations</translation>
    </message>
    <message>
        <source>Reading a conversation</source>
        <translation>Reading a conversation</translation>
    </message>
    <message>
        <source>Updating a conversation</source>
        <translation>Updating a conversation</translation>
    </message>
    <message>
        <source>There is no conversation %1.</source>
        <translation>There is no conversation %1.</translation>
    </message>
    <message>
        <source>Deleting a conversation</source>
        <translation>Deleting a conversation</translation>
    </message>
    <message>
        <source>There is no conversation %1 to delete.</source>
        <translation>There is no conversation %1 to delete.</translation>
    </message>
    <message>
        <source>Restoring a conversation</source>
        <translation>Restoring a conversation</translation>
    </message>
    <message>
        <source>Conversation %1 is not in the bin.</source>
        <translation>Conversation %1 is not in the bin.</translation>
    </message>
    <message>
        <source>Emptying the bin</source>
        <translation>Emptying the bin</translation>
    </message>
    <message>
        <source>Reading a message</source>
        <translation>Reading a message</translation>
    </message>
    <message>
        <source>There is no message %1.</source>
        <translation>There is no message %1.</translation>
    </message>
    <message>
        <source>Message %1 belongs to another conversation.</source>
        <translation>Message %1 belongs to another conversation.</translation>
    </message>
    <message>
        <source>Saving a message</source>
        <translation>Saving a message</translation>
    </message>
    <message>
        <source>Switching branch</source>
        <translation>Switching branch</translation>
    </message>
    <message>
        <source>Deleting a message</source>
        <translation>Deleting a message</translation>
    </message>
    <message>
        <source>Message %1 is not being streamed.</source>
        <translation>Message %1 is not being streamed.</translation>
    </message>
    <message>
        <source>Saving the answer: %1</source>
        <translation>Saving the answer: %1</translation>
    </message>
    <message>
        <source>Searching</source>
        <translation>Searching</translation>
    </message>
    <message>
        <source>There is no conversation %1 to export.</source>
        <translation>There is no conversation %1 to export.</translation>
    </message>
    <message>
        <source>Continuing an answer</source>
        <translation>Continuing an answer</translation>
    </message>
</context>
<context>
    <name>hearth::DownloadManager</name>
    <message>
        <source>Copying %1 was interrupted; import it again.</source>
        <translation>Copying %1 was interrupted; import it again.</translation>
    </message>
    <message>
        <source>Verified: the SHA-256 checksum matches the one published with the model.</source>
        <translation>Verified: the SHA-256 checksum matches the one published with the model.</translation>
    </message>
    <message>
        <source>Only the size was checked: no checksum is published for this file.</source>
        <translation>Only the size was checked: no checksum is published for this file.</translation>
    </message>
    <message>
        <source>Not verified.</source>
        <translation>Not verified.</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>Cannot create the folder %1.</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: the download needs %2 more, %3 is free.</source>
        <translation>Not enough disk space in %1: the download needs %2 more, %3 is free.</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>Cannot write %1: %2</translation>
    </message>
    <message>
        <source>The file is damaged: the server sent more data than expected.</source>
        <translation>The file is damaged: the server sent more data than expected.</translation>
    </message>
    <message>
        <source>Too many or unsafe redirects while downloading %1.</source>
        <translation>Too many or unsafe redirects while downloading %1.</translation>
    </message>
    <message>
        <source>The connection was closed before the download finished.</source>
        <translation>The connection was closed before the download finished.</translation>
    </message>
    <message numerus="yes">
        <source>The download failed after %n attempt(s): %1</source>
        <translation>
            <numerusform>The download failed after %n attempt: %1</numerusform>
            <numerusform>The download failed after %n attempts: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>The file is damaged (size mismatch: %1 instead of %2); it was deleted.</source>
        <translation>The file is damaged (size mismatch: %1 instead of %2); it was deleted.</translation>
    </message>
    <message>
        <source>The file is damaged (checksum mismatch); it was deleted. Try downloading it again.</source>
        <translation>The file is damaged (checksum mismatch); it was deleted. Try downloading it again.</translation>
    </message>
    <message>
        <source>Cannot replace %1.</source>
        <translation>Cannot replace %1.</translation>
    </message>
    <message>
        <source>Cannot rename the finished download to %1.</source>
        <translation>Cannot rename the finished download to %1.</translation>
    </message>
    <message>
        <source>%1 is already in the models folder.</source>
        <translation>%1 is already in the models folder.</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: copying the model needs %2, %3 is free.</source>
        <translation>Not enough disk space in %1: copying the model needs %2, %3 is free.</translation>
    </message>
    <message>
        <source>Copying %1 failed: %2</source>
        <translation>Copying %1 failed: %2</translation>
    </message>
    <message>
        <source>Cannot rename the copied file to %1.</source>
        <translation>Cannot rename the copied file to %1.</translation>
    </message>
</context>
<context>
    <name>hearth::DownloadQueueStore</name>
    <message>
        <source>Cannot open the download list %1.</source>
        <translation>Cannot open the download list %1.</translation>
    </message>
    <message>
        <source>The download list could not be prepared.</source>
        <translation>The download list could not be prepared.</translation>
    </message>
    <message>
        <source>The download list was written by a newer version of Hearth and is left untouched.</source>
        <translation>The download list was written by a newer version of Hearth and is left untouched.</translation>
    </message>
    <message>
        <source>The download could not be saved.</source>
        <translation>The download could not be saved.</translation>
    </message>
    <message>
        <source>The download could not be removed.</source>
        <translation>The download could not be removed.</translation>
    </message>
    <message>
        <source>The download list could not be read.</source>
        <translation>The download list could not be read.</translation>
    </message>
</context>
<context>
    <name>hearth::FileHasher</name>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>Cannot read %1: %2</translation>
    </message>
</context>
<context>
    <name>hearth::GgufProbe</name>
    <message>
        <source>%1 does not exist or is not a file.</source>
        <translation>%1 does not exist or is not a file.</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>Cannot read %1: %2</translation>
    </message>
    <message>
        <source>%1 is too small to be a GGUF model.</source>
        <translation>%1 is too small to be a GGUF model.</translation>
    </message>
    <message>
        <source>%1 is not a GGUF model file.</source>
        <translation>%1 is not a GGUF model file.</translation>
    </message>
    <message>
        <source>%1 uses GGUF version %2, which Hearth cannot read.</source>
        <translation>%1 uses GGUF version %2, which Hearth cannot read.</translation>
    </message>
    <message>
        <source>%1 has a damaged GGUF header.</source>
        <translation>%1 has a damaged GGUF header.</translation>
    </message>
</context>
<context>
    <name>hearth::HuggingFaceApi</name>
    <message>
        <source>%1 needs a Hugging Face access token. If the model is gated, accept the licence on the model&apos;s page on the Hugging Face website and set a token in Settings.</source>
        <translation>%1 needs a Hugging Face access token. If the model is gated, accept the licence on the model&apos;s page on the Hugging Face website and set a token in Settings.</translation>
    </message>
    <message>
        <source>Access to %1 was refused. The model is probably gated: accept the licence on the model&apos;s page on the Hugging Face website and check that your token can read it.</source>
        <translation>Access to %1 was refused. The model is probably gated: accept the licence on the model&apos;s page on the Hugging Face website and check that your token can read it.</translation>
    </message>
    <message>
        <source>%1 was not found. Check the repository name, the revision and the file name.</source>
        <translation>%1 was not found. Check the repository name, the revision and the file name.</translation>
    </message>
    <message numerus="yes">
        <source>Hugging Face is limiting requests (HTTP 429); try again in %n second(s).</source>
        <translation>
            <numerusform>Hugging Face is limiting requests (HTTP 429); try again in %n second.</numerusform>
            <numerusform>Hugging Face is limiting requests (HTTP 429); try again in %n seconds.</numerusform>
        </translation>
    </message>
    <message>
        <source>Hugging Face is limiting requests (HTTP 429); try again later.</source>
        <translation>Hugging Face is limiting requests (HTTP 429); try again later.</translation>
    </message>
    <message>
        <source>The server had a problem (HTTP %1) while fetching %2. Try again later.</source>
        <translation>The server had a problem (HTTP %1) while fetching %2. Try again later.</translation>
    </message>
    <message>
        <source>The server answered HTTP %1 for %2.</source>
        <translation>The server answered HTTP %1 for %2.</translation>
    </message>
    <message>
        <source>Cannot find the server %1. Check the internet connection.</source>
        <translation>Cannot find the server %1. Check the internet connection.</translation>
    </message>
    <message>
        <source>The server %1 refused the connection.</source>
        <translation>The server %1 refused the connection.</translation>
    </message>
    <message>
        <source>The connection was closed before the download finished.</source>
        <translation>The connection was closed before the download finished.</translation>
    </message>
    <message>
        <source>The connection stalled (no data for a while).</source>
        <translation>The connection stalled (no data for a while).</translation>
    </message>
    <message>
        <source>A secure connection to %1 could not be established.</source>
        <translation>A secure connection to %1 could not be established.</translation>
    </message>
    <message>
        <source>Network error: %1</source>
        <translation>Network error: %1</translation>
    </message>
    <message>
        <source>The repository listing could not be read (unexpected answer from the server).</source>
        <translation>The repository listing could not be read (unexpected answer from the server).</translation>
    </message>
    <message>
        <source>The search results could not be read (unexpected answer from the server).</source>
        <translation>The search results could not be read (unexpected answer from the server).</translation>
    </message>
    <message>
        <source>Too many or unsafe redirects while fetching %1.</source>
        <translation>Too many or unsafe redirects while fetching %1.</translation>
    </message>
</context>
<context>
    <name>hearth::app::ChatController</name>
    <message>
        <source>The application was closed while answering.</source>
        <translation>The application was closed while answering.</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>Could not write %1: %2</translation>
    </message>
    <message>
        <source>Chat</source>
        <comment>file name of an exported chat without a title</comment>
        <translation>Chat</translation>
    </message>
    <message numerus="yes">
        <source>%n earlier message(s) no longer fit the model&apos;s context and were left out of this answer.</source>
        <translation>
            <numerusform>%n earlier message no longer fits the model&apos;s context and was left out of this answer.</numerusform>
            <numerusform>%n earlier messages no longer fit the model&apos;s context and were left out of this answer.</numerusform>
        </translation>
    </message>
    <message>
        <source>The model is not ready to answer.</source>
        <translation>The model is not ready to answer.</translation>
    </message>
    <message>
        <source>This chat is still being answered: stop the answer before deleting the chat.</source>
        <translation>This chat is still being answered: stop the answer before deleting the chat.</translation>
    </message>
</context>
<context>
    <name>hearth::app::EngineWorker</name>
    <message>
        <source>The model file %1 does not exist.</source>
        <translation>The model file %1 does not exist.</translation>
    </message>
    <message>
        <source>The model file %1 cannot be read.</source>
        <translation>The model file %1 cannot be read.</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>Could not load %1: %2</translation>
    </message>
    <message>
        <source>Could not start a session with %1: %2</source>
        <translation>Could not start a session with %1: %2</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>No model is loaded.</translation>
    </message>
    <message>
        <source>The chat template failed: %1</source>
        <translation>The chat template failed: %1</translation>
    </message>
    <message>
        <source>The prompt is empty.</source>
        <translation>The prompt is empty.</translation>
    </message>
    <message>
        <source>Loading %1 was cancelled.</source>
        <translation>Loading %1 was cancelled.</translation>
    </message>
    <message>
        <source>Could not place the model for this budget: %1</source>
        <translation>Could not place the model for this budget: %1</translation>
    </message>
    <message>
        <source>Placing the model again was cancelled; the previous placement is kept.</source>
        <translation>Placing the model again was cancelled; the previous placement is kept.</translation>
    </message>
    <message>
        <source>Could not restore the previous placement: %1</source>
        <translation>Could not restore the previous placement: %1</translation>
    </message>
    <message>
        <source>The conversation (%1 tokens) no longer fits the model&apos;s context of %2 tokens. Delete earlier messages, let Chat Settings leave the oldest out, or start a new chat.</source>
        <translation>The conversation (%1 tokens) no longer fits the model&apos;s context of %2 tokens. Delete earlier messages, let Chat Settings leave the oldest out, or start a new chat.</translation>
    </message>
    <message>
        <source>%1 read from the disk as needed (not enough free memory)</source>
        <translation>%1 read from the disk as needed (not enough free memory)</translation>
    </message>
    <message>
        <source>The draft model %1 cannot be loaded: %2</source>
        <translation>The draft model %1 cannot be loaded: %2</translation>
    </message>
    <message>
        <source>The draft model %1 cannot guess for this model: %2</source>
        <translation>The draft model %1 cannot guess for this model: %2</translation>
    </message>
    <message>
        <source>%1 more memory for faster prompts</source>
        <translation>%1 more memory for faster prompts</translation>
    </message>
</context>
<context>
    <name>hearth::app::FileDialogSupport</name>
    <message>
        <source>The file chooser cannot open because this installation lacks the Qt module %1. Install the package %2 (for example with “sudo apt install %2”) and start Hearth again.</source>
        <comment>%1 is a list of QML module names, %2 a list of package names</comment>
        <translation>The file chooser cannot open because this installation lacks the Qt module %1. Install the package %2 (for example with “sudo apt install %2”) and start Hearth again.</translation>
    </message>
</context>
<context>
    <name>hearth::app::ModelSession</name>
    <message>
        <source>This model&apos;s own chat template cannot be used (%1), so Hearth formats the chat in its built-in “%2” style; answers may be less accurate.</source>
        <translation>This model&apos;s own chat template cannot be used (%1), so Hearth formats the chat in its built-in “%2” style; answers may be less accurate.</translation>
    </message>
    <message>
        <source>Remote: %1</source>
        <translation>Remote: %1</translation>
    </message>
    <message>
        <source>Remote: the model runs on %1, not on this computer.</source>
        <translation>Remote: the model runs on %1, not on this computer.</translation>
    </message>
    <message>
        <source>The server offers no models.</source>
        <translation>The server offers no models.</translation>
    </message>
    <message>
        <source>The server does not offer a model named “%1”.</source>
        <translation>The server does not offer a model named “%1”.</translation>
    </message>
    <message>
        <source>OpenAI-compatible server at %1</source>
        <translation>OpenAI-compatible server at %1</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2 of memory)</source>
        <translation>%1 (%2 of memory)</translation>
    </message>
    <message>
        <source>The GPU stopped working (%1). The model goes on with the CPU, more slowly; load it again to use the GPU.</source>
        <translation>The GPU stopped working (%1). The model goes on with the CPU, more slowly; load it again to use the GPU.</translation>
    </message>
    <message>
        <source>Last answer: %1 of %2 guessed tokens were right (%3 %).</source>
        <translation>Last answer: %1 of %2 guessed tokens were right (%3 %).</translation>
    </message>
</context>
<context>
    <name>hearth::models::CatalogDescription</name>
    <message>
        <source>Alibaba&apos;s Qwen 3, 4B: a reasoning model that thinks in &lt;think&gt; blocks (shown folded) before it answers; 32k-token context.</source>
        <translation>Alibaba&apos;s Qwen 3, 4B: a reasoning model that thinks in &lt;think&gt; blocks (shown folded) before it answers; 32k-token context.</translation>
    </message>
    <message>
        <source>Qwen 3, 8B: strong reasoning, coding and many languages; thinks before it answers; 32k-token context.</source>
        <translation>Qwen 3, 8B: strong reasoning, coding and many languages; thinks before it answers; 32k-token context.</translation>
    </message>
    <message>
        <source>Qwen 3, 14B: the largest dense Qwen 3 that suits 16 GB of RAM; thinks before it answers; 32k-token context.</source>
        <translation>Qwen 3, 14B: the largest dense Qwen 3 that suits 16 GB of RAM; thinks before it answers; 32k-token context.</translation>
    </message>
    <message>
        <source>Meta&apos;s Llama 3.1 8B Instruct: a capable general assistant with a 128k-token context.</source>
        <translation>Meta&apos;s Llama 3.1 8B Instruct: a capable general assistant with a 128k-token context.</translation>
    </message>
    <message>
        <source>Meta&apos;s Llama 3.2 3B Instruct: small and quick, good for laptops; 128k-token context.</source>
        <translation>Meta&apos;s Llama 3.2 3B Instruct: small and quick, good for laptops; 128k-token context.</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 4B (text): five local layers to one global keep long chats small in memory; 128k-token context.</source>
        <translation>Google&apos;s Gemma 3 4B (text): five local layers to one global keep long chats small in memory; 128k-token context.</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 12B (text): strong writing and many languages; 128k-token context.</source>
        <translation>Google&apos;s Gemma 3 12B (text): strong writing and many languages; 128k-token context.</translation>
    </message>
    <message>
        <source>Mistral 7B Instruct v0.3: a dependable all-rounder with a 32k-token context.</source>
        <translation>Mistral 7B Instruct v0.3: a dependable all-rounder with a 32k-token context.</translation>
    </message>
    <message>
        <source>Microsoft&apos;s Phi-4-mini: 3.8B, good at reasoning and maths for its size; 128k-token context.</source>
        <translation>Microsoft&apos;s Phi-4-mini: 3.8B, good at reasoning and maths for its size; 128k-token context.</translation>
    </message>
    <message>
        <source>Llama 2 7B fine-tuned to ReLU-gated FFNs; PowerInfer file with predictors. About 70% of FFN neurons stay silent per token.</source>
        <translation>Llama 2 7B fine-tuned to ReLU-gated FFNs; PowerInfer file with predictors. About 70% of FFN neurons stay silent per token.</translation>
    </message>
    <message>
        <source>Llama 2 13B with ReLU-gated FFNs and predictors, ready for hybrid GPU/CPU inference.</source>
        <translation>Llama 2 13B with ReLU-gated FFNs and predictors, ready for hybrid GPU/CPU inference.</translation>
    </message>
    <message>
        <source>Llama 2 70B with ReLU-gated FFNs and predictors. Needs about 40 GB of RAM plus GPU memory.</source>
        <translation>Llama 2 70B with ReLU-gated FFNs and predictors. Needs about 40 GB of RAM plus GPU memory.</translation>
    </message>
    <message>
        <source>Llama 2 7B trained for high activation sparsity (about 89% of FFN neurons inactive) with quality close to the original.</source>
        <translation>Llama 2 7B trained for high activation sparsity (about 89% of FFN neurons inactive) with quality close to the original.</translation>
    </message>
    <message>
        <source>Llama 2 13B trained for high activation sparsity (about 89%); PowerInfer file with predictors.</source>
        <translation>Llama 2 13B trained for high activation sparsity (about 89%); PowerInfer file with predictors.</translation>
    </message>
    <message>
        <source>Mistral-sized model with ReLU on both gate and up: keeping only the top 10% of neurons barely changes perplexity (6.48 to 6.52).</source>
        <translation>Mistral-sized model with ReLU on both gate and up: keeping only the top 10% of neurons barely changes perplexity (6.48 to 6.52).</translation>
    </message>
    <message>
        <source>Bamboo-7B tuned for chat with DPO; the fastest sparse chat model in the catalog.</source>
        <translation>Bamboo-7B tuned for chat with DPO; the fastest sparse chat model in the catalog.</translation>
    </message>
    <message>
        <source>Falcon 40B with ReLU FFNs and predictors; PowerInfer&apos;s headline model (up to 11.7x llama.cpp in FP16 on one RTX 4090).</source>
        <translation>Falcon 40B with ReLU FFNs and predictors; PowerInfer&apos;s headline model (up to 11.7x llama.cpp in FP16 on one RTX 4090).</translation>
    </message>
    <message>
        <source>Original Hugging Face weights; Hearth converts them to GGUF and adds the predictors from PowerInfer/ReluLLaMA-7B-Predictor.</source>
        <translation>Original Hugging Face weights; Hearth converts them to GGUF and adds the predictors from PowerInfer/ReluLLaMA-7B-Predictor.</translation>
    </message>
    <message>
        <source>Original weights, converted on this machine with the predictors from PowerInfer/ReluLLaMA-13B-Predictor.</source>
        <translation>Original weights, converted on this machine with the predictors from PowerInfer/ReluLLaMA-13B-Predictor.</translation>
    </message>
    <message>
        <source>Original FP32 weights (very large); converted on this machine with the predictors from PowerInfer/ReluFalcon-40B-Predictor.</source>
        <translation>Original FP32 weights (very large); converted on this machine with the predictors from PowerInfer/ReluFalcon-40B-Predictor.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 1.3B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta&apos;s OPT 1.3B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 2.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta&apos;s OPT 2.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 6.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta&apos;s OPT 6.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 13B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta&apos;s OPT 13B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 30B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta&apos;s OPT 30B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 66B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta&apos;s OPT 66B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</translation>
    </message>
    <message>
        <source>Qwen 3, 30B mixture of experts: each token runs 3B of its parameters, so it answers about as fast as a 3B model with the knowledge of a much larger one; thinks before it answers.</source>
        <translation>Qwen 3, 30B mixture of experts: each token runs 3B of its parameters, so it answers about as fast as a 3B model with the knowledge of a much larger one; thinks before it answers.</translation>
    </message>
    <message>
        <source>OpenAI&apos;s gpt-oss-20b: a mixture of experts that runs 3.6B of its 21B parameters per token, in OpenAI&apos;s own 4-bit MXFP4 weights; reasons before it answers (shown folded).</source>
        <translation>OpenAI&apos;s gpt-oss-20b: a mixture of experts that runs 3.6B of its 21B parameters per token, in OpenAI&apos;s own 4-bit MXFP4 weights; reasons before it answers (shown folded).</translation>
    </message>
</context>
<context>
    <name>hearth::models::ConversionJob</name>
    <message>
        <source>%1 appeared while converting.</source>
        <translation>%1 appeared while converting.</translation>
    </message>
    <message>
        <source>Choose a model folder to convert.</source>
        <translation>Choose a model folder to convert.</translation>
    </message>
    <message>
        <source>%1 is neither a model folder nor a GGUF file.</source>
        <translation>%1 is neither a model folder nor a GGUF file.</translation>
    </message>
    <message>
        <source>%1 has no config.json. Choose the folder of a Hugging Face model.</source>
        <translation>%1 has no config.json. Choose the folder of a Hugging Face model.</translation>
    </message>
    <message>
        <source>The folder %1 does not exist.</source>
        <translation>The folder %1 does not exist.</translation>
    </message>
    <message>
        <source>Predictors and activation statistics can only be added when converting a model folder.</source>
        <translation>Predictors and activation statistics can only be added when converting a model folder.</translation>
    </message>
    <message>
        <source>Choose where to save the converted model.</source>
        <translation>Choose where to save the converted model.</translation>
    </message>
    <message>
        <source>The converted model must not replace the model it is made from.</source>
        <translation>The converted model must not replace the model it is made from.</translation>
    </message>
    <message>
        <source>%1 already exists. Choose another name, or allow replacing it.</source>
        <translation>%1 already exists. Choose another name, or allow replacing it.</translation>
    </message>
    <message>
        <source>Reading the model</source>
        <translation>Reading the model</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Done</translation>
    </message>
    <message>
        <source>Cancelled. No file was written.</source>
        <translation>Cancelled. No file was written.</translation>
    </message>
    <message>
        <source>This model cannot be converted: %1</source>
        <translation>This model cannot be converted: %1</translation>
    </message>
    <message>
        <source>A file of the model is damaged, incomplete or unsafe: %1</source>
        <translation>A file of the model is damaged, incomplete or unsafe: %1</translation>
    </message>
    <message>
        <source>The model could not be read: %1</source>
        <translation>The model could not be read: %1</translation>
    </message>
    <message>
        <source>Checking free disk space</source>
        <translation>Checking free disk space</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: the new model needs %2, but only %3 are free.</source>
        <translation>Not enough disk space in %1: the new model needs %2, but only %3 are free.</translation>
    </message>
    <message>
        <source>Quantizing to %1</source>
        <translation>Quantizing to %1</translation>
    </message>
    <message>
        <source>Converting to %1</source>
        <translation>Converting to %1</translation>
    </message>
    <message>
        <source>Writing the model failed: %1</source>
        <translation>Writing the model failed: %1</translation>
    </message>
    <message>
        <source>The conversion failed: %1</source>
        <translation>The conversion failed: %1</translation>
    </message>
    <message>
        <source>Checking that the new model loads and answers</source>
        <translation>Checking that the new model loads and answers</translation>
    </message>
    <message>
        <source>The new model failed its check, so it was not kept: %1</source>
        <translation>The new model failed its check, so it was not kept: %1</translation>
    </message>
    <message>
        <source>The new model could not be saved as %1: %2</source>
        <translation>The new model could not be saved as %1: %2</translation>
    </message>
    <message>
        <source>Saved %1 (%2).</source>
        <translation>Saved %1 (%2).</translation>
    </message>
    <message>
        <source>The calibration text %1 does not exist.</source>
        <translation>The calibration text %1 does not exist.</translation>
    </message>
    <message>
        <source>This model cannot be made sparse: %1</source>
        <translation>This model cannot be made sparse: %1</translation>
    </message>
    <message>
        <source>The calibration text %1 cannot be read: %2</source>
        <translation>The calibration text %1 cannot be read: %2</translation>
    </message>
    <message>
        <source>The sparse model answers worse than the dense one allows, so it was not kept: %1</source>
        <translation>The sparse model answers worse than the dense one allows, so it was not kept: %1</translation>
    </message>
    <message>
        <source>Making the model sparse failed: %1</source>
        <translation>Making the model sparse failed: %1</translation>
    </message>
    <message>
        <source>Making the model sparse and checking it</source>
        <translation>Making the model sparse and checking it</translation>
    </message>
    <message>
        <source>perplexity %1 instead of %2; expected decode speed-up %3×.</source>
        <translation>perplexity %1 instead of %2; expected decode speed-up %3×.</translation>
    </message>
    <message>
        <source>On text it was not calibrated on, a token skips %1% of the neurons&apos; outputs and reads %2% of the up projection; %3</source>
        <translation>On text it was not calibrated on, a token skips %1% of the neurons&apos; outputs and reads %2% of the up projection; %3</translation>
    </message>
    <message>
        <source>On text it was not fitted to, the predictors find %1% of the neurons that fire and select %2% of all; %3</source>
        <translation>On text it was not fitted to, the predictors find %1% of the neurons that fire and select %2% of all; %3</translation>
    </message>
</context>
<context>
    <name>hearth::models::DownloadListModel</name>
    <message>
        <source>%1 MB/s</source>
        <translation>%1 MB/s</translation>
    </message>
    <message>
        <source>%1 kB/s</source>
        <translation>%1 kB/s</translation>
    </message>
    <message>
        <source>less than a minute left</source>
        <translation>less than a minute left</translation>
    </message>
    <message numerus="yes">
        <source>about %n min left</source>
        <translation>
            <numerusform>about %n min left</numerusform>
            <numerusform>about %n min left</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n h left</source>
        <translation>
            <numerusform>about %n h left</numerusform>
            <numerusform>about %n h left</numerusform>
        </translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>Waiting</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>Downloading</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Paused</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>Checking</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>Installed</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Failed</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Cancelled</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 of %2</translation>
    </message>
</context>
<context>
    <name>hearth::models::GpuInfo</name>
    <message>
        <source>Simulated GPU (%1 GB)</source>
        <translation>Simulated GPU (%1 GB)</translation>
    </message>
</context>
<context>
    <name>hearth::models::HubSearch</name>
    <message>
        <source>Predictor weights only: download the model they belong to.</source>
        <translation>Predictor weights only: download the model they belong to.</translation>
    </message>
    <message>
        <source>PowerInfer GGUF with predictors: hot neurons on the GPU, the rest on the CPU.</source>
        <translation>PowerInfer GGUF with predictors: hot neurons on the GPU, the rest on the CPU.</translation>
    </message>
    <message>
        <source>Converted to GGUF on this computer, with the predictors from %1.</source>
        <translation>Converted to GGUF on this computer, with the predictors from %1.</translation>
    </message>
    <message>
        <source>The architecture could not be determined from the repository.</source>
        <translation>The architecture could not be determined from the repository.</translation>
    </message>
    <message>
        <source>The %1 architecture is not supported.</source>
        <translation>The %1 architecture is not supported.</translation>
    </message>
    <message>
        <source>GGUF without predictors: runs dense (whole layers on the GPU as they fit).</source>
        <translation>GGUF without predictors: runs dense (whole layers on the GPU as they fit).</translation>
    </message>
    <message>
        <source>No predictors: converted to GGUF on this computer and run dense.</source>
        <translation>No predictors: converted to GGUF on this computer and run dense.</translation>
    </message>
    <message>
        <source>No GGUF, safetensors or PyTorch weights found.</source>
        <translation>No GGUF, safetensors or PyTorch weights found.</translation>
    </message>
    <message>
        <source>Hearth runs %1 models from GGUF files but cannot convert this checkpoint: look for a GGUF version.</source>
        <translation>Hearth runs %1 models from GGUF files but cannot convert this checkpoint: look for a GGUF version.</translation>
    </message>
</context>
<context>
    <name>hearth::models::ModelCatalog</name>
    <message>
        <source>%1B</source>
        <comment>billions of parameters</comment>
        <translation>%1B</translation>
    </message>
</context>
<context>
    <name>hearth::models::ModelLibrary</name>
    <message>
        <source>Cannot read the model&apos;s layout: %1</source>
        <translation>Cannot read the model&apos;s layout: %1</translation>
    </message>
    <message>
        <source>%1 is an unfinished download and cannot be imported.</source>
        <translation>%1 is an unfinished download and cannot be imported.</translation>
    </message>
    <message>
        <source>%1 cannot be used: %2</source>
        <translation>%1 cannot be used: %2</translation>
    </message>
    <message>
        <source>Choose a model file to import.</source>
        <translation>Choose a model file to import.</translation>
    </message>
    <message>
        <source>%1 is already in the list.</source>
        <translation>%1 is already in the list.</translation>
    </message>
    <message>
        <source>Cannot delete %1: %2</source>
        <translation>Cannot delete %1: %2</translation>
    </message>
</context>
<context>
    <name>hearth::models::ModelManager</name>
    <message>
        <source>Unknown catalog model &quot;%1&quot;.</source>
        <translation>Unknown catalog model &quot;%1&quot;.</translation>
    </message>
    <message>
        <source>%1 has no file named %2.</source>
        <translation>%1 has no file named %2.</translation>
    </message>
</context>
<context>
    <name>hearth::models::PlacementPreview</name>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>Cannot plan this model: %1</source>
        <translation>Cannot plan this model: %1</translation>
    </message>
    <message>
        <source>Unknown catalog model &quot;%1&quot;.</source>
        <translation>Unknown catalog model &quot;%1&quot;.</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Planned GPU of %1 GB</source>
        <translation>Planned GPU of %1 GB</translation>
    </message>
    <message>
        <source>Auto (%1)</source>
        <translation>Auto (%1)</translation>
    </message>
    <message>
        <source>Not enough RAM: this placement needs %1 besides the GPU&apos;s share.</source>
        <translation>Not enough RAM: this placement needs %1 besides the GPU&apos;s share.</translation>
    </message>
    <message>
        <source>Everything is on the GPU.</source>
        <translation>Everything is on the GPU.</translation>
    </message>
    <message>
        <source>No GPU memory budget: everything runs on the CPU.</source>
        <translation>No GPU memory budget: everything runs on the CPU.</translation>
    </message>
    <message>
        <source>The budget is below the GPU&apos;s fixed costs: everything runs on the CPU.</source>
        <translation>The budget is below the GPU&apos;s fixed costs: everything runs on the CPU.</translation>
    </message>
    <message>
        <source>%1 of %2 layers&apos; attention and %3 of %4 FFN neurons on the GPU; the rest on the CPU.</source>
        <translation>%1 of %2 layers&apos; attention and %3 of %4 FFN neurons on the GPU; the rest on the CPU.</translation>
    </message>
    <message>
        <source>Weights %1 · KV cache %2 · Scratch %3 · Reserve %4 · Total %5 of %6</source>
        <translation>Weights %1 · KV cache %2 · Scratch %3 · Reserve %4 · Total %5 of %6</translation>
    </message>
    <message>
        <source>Expected speed: %1</source>
        <translation>Expected speed: %1</translation>
    </message>
    <message>
        <source>Hot neurons on the GPU: %1 of %2</source>
        <translation>Hot neurons on the GPU: %1 of %2</translation>
    </message>
    <message>
        <source>Layers on the GPU: %1 of %2 (dense model)</source>
        <translation>Layers on the GPU: %1 of %2 (dense model)</translation>
    </message>
    <message>
        <source>%1 of %2 layers&apos; attention and %3 of %4 experts on the GPU, the most used first; the rest on the CPU.</source>
        <translation>%1 of %2 layers&apos; attention and %3 of %4 experts on the GPU, the most used first; the rest on the CPU.</translation>
    </message>
    <message>
        <source>Experts on the GPU: %1 of %2</source>
        <translation>Experts on the GPU: %1 of %2</translation>
    </message>
</context>
<context>
    <name>hearth::openai::ApiServer</name>
    <message>
        <source>Cannot listen on %1:%2. Another program may use that port, or the address is not this computer&apos;s.</source>
        <translation>Cannot listen on %1:%2. Another program may use that port, or the address is not this computer&apos;s.</translation>
    </message>
</context>
<context>
    <name>hearth::openai::RemoteEngine</name>
    <message>
        <source>The server refused the API key (%1).</source>
        <translation>The server refused the API key (%1).</translation>
    </message>
    <message>
        <source>The server answered %1: %2</source>
        <translation>The server answered %1: %2</translation>
    </message>
    <message>
        <source>The server answered %1.</source>
        <translation>The server answered %1.</translation>
    </message>
    <message>
        <source>Cannot reach the server: %1</source>
        <translation>Cannot reach the server: %1</translation>
    </message>
    <message>
        <source>That is not a server address. Type one like http://127.0.0.1:8080/v1.</source>
        <translation>That is not a server address. Type one like http://127.0.0.1:8080/v1.</translation>
    </message>
    <message>
        <source>The server&apos;s answer is not a list of models; is this an OpenAI-compatible server?</source>
        <translation>The server&apos;s answer is not a list of models; is this an OpenAI-compatible server?</translation>
    </message>
    <message>
        <source>Another answer is still streaming from the server.</source>
        <translation>Another answer is still streaming from the server.</translation>
    </message>
    <message>
        <source>The server failed while answering: %1</source>
        <translation>The server failed while answering: %1</translation>
    </message>
    <message>
        <source>The server closed the connection before the answer was complete.</source>
        <translation>The server closed the connection before the answer was complete.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Cannot create the data folder %1.</source>
        <translation>Cannot create the data folder %1.</translation>
    </message>
</context>
</TS>
