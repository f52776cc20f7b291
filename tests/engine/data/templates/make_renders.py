#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes renders.json: each template here rendered the way Hugging Face transformers renders
# chat templates (a sandboxed Jinja2 environment with trim_blocks and lstrip_blocks, the
# loopcontrols extension, raise_exception and a tojson that keeps non-ASCII text), for the
# conversations below, with a generation prompt. strftime_now("%d %b %Y"), which dates Llama
# 3.2's system prompt, gives @TODAY@, and strftime_now("%Y-%m-%d") (gpt-oss's) @ISODATE@: the test
# puts the day it runs in their place.
# A template that raises for a system turn is rendered as Hearth then renders it: the system
# text folded before the first question, separated by a blank line.
#
#     python3 make_renders.py > renders.json      (jinja2 3.1.6)
import json
import sys
from pathlib import Path

import jinja2
import jinja2.ext
import jinja2.sandbox

TEMPLATES = {  # file: (bos_token, eos_token)
    "meta-llama-Llama-3.1-8B-Instruct.jinja": ("<|begin_of_text|>", "<|eot_id|>"),
    "meta-llama-Llama-3.2-3B-Instruct.jinja": ("<|begin_of_text|>", "<|eot_id|>"),
    "google-gemma-2-2b-it.jinja": ("<bos>", "<eos>"),
    "microsoft-Phi-3.5-mini-instruct.jinja": ("<s>", "<|endoftext|>"),
    "mistralai-Mistral-Nemo-Instruct-2407.jinja": ("<s>", "</s>"),
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja": ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    "qwen2.5-instruct.jinja": ("", "<|im_end|>"),
    "Qwen-Qwen3-0.6B.jinja": ("", "<|im_end|>"),
    "google-gemma-3-4b-it.jinja": ("<bos>", "<eos>"),
    "openai-gpt-oss-120b.jinja": ("<|startoftext|>", "<|return|>"),
}

CONVERSATIONS = {
    "with_system": [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hi there."},
        {"role": "user", "content": "How are you?"},
    ],
    "without_system": [
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hi there."},
        {"role": "user", "content": "How are you?"},
    ],
    "unicode": [
        {"role": "user", "content": "Grüße, 你好 — ¿qué tal? 🙂"},
    ],
    # An earlier answer of a reasoning model, with its thinking: Qwen 3 leaves that out.
    "reasoning": [
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "<think>\nA greeting.\n</think>\n\nHi there."},
        {"role": "user", "content": "How are you?"},
    ],
}


class TemplateError(Exception):
    pass


def raise_exception(message):
    raise TemplateError(message)


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def environment():
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                                       extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    dates = {"%d %b %Y": "@TODAY@", "%Y-%m-%d": "@ISODATE@"}
    env.globals["strftime_now"] = lambda fmt: dates[fmt] if fmt in dates else raise_exception(fmt)
    return env


def folded(messages):
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    rest = [dict(m) for m in messages if m["role"] != "system"]
    for m in rest:
        if m["role"] == "user":
            m["content"] = system + "\n\n" + m["content"]
            break
    return rest


def main():
    here = Path(__file__).parent
    out = {}
    for name, (bos, eos) in TEMPLATES.items():
        template = environment().from_string((here / name).read_text())
        renders = {}
        for key, messages in CONVERSATIONS.items():
            args = dict(bos_token=bos, eos_token=eos, add_generation_prompt=True)
            try:
                renders[key] = template.render(messages=messages, **args)
            except TemplateError:
                renders[key] = template.render(messages=folded(messages), **args)
        out[name] = {"bos_token": bos, "eos_token": eos, "renders": renders}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
