<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CatalogEntry</name>
    <message>
        <source>The model catalog is not valid JSON: %1</source>
        <translation>模型目录不是有效的 JSON：%1</translation>
    </message>
    <message>
        <source>The model catalog has an unknown version.</source>
        <translation>模型目录的版本未知。</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; has a file without name, quantization or size.</source>
        <translation>目录条目“%1”中有缺少名称、量化方式或大小的文件。</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; lacks a required field.</source>
        <translation>目录条目“%1”缺少必填字段。</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; appears twice.</source>
        <translation>目录条目“%1”出现了两次。</translation>
    </message>
    <message>
        <source>The model catalog is empty.</source>
        <translation>模型目录为空。</translation>
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
            <numerusform>%n 字节</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChatSettingsDialog</name>
    <message>
        <source>Chat Settings</source>
        <translation>对话设置</translation>
    </message>
    <message>
        <source>System prompt:</source>
        <translation>系统提示词：</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Temperature:</source>
        <translation>温度：</translation>
    </message>
    <message>
        <source>Top-k:</source>
        <translation>Top-k：</translation>
    </message>
    <message>
        <source>Top-p:</source>
        <translation>Top-p：</translation>
    </message>
    <message>
        <source>Min-p:</source>
        <translation>Min-p：</translation>
    </message>
    <message>
        <source>Repeat penalty:</source>
        <translation>重复惩罚：</translation>
    </message>
    <message>
        <source>Maximum tokens:</source>
        <translation>最大词元数：</translation>
    </message>
    <message>
        <source>Seed (-1: random):</source>
        <translation>随机种子（-1：随机）：</translation>
    </message>
    <message>
        <source>Penalize the last tokens:</source>
        <translation>惩罚最近的词元数：</translation>
    </message>
    <message>
        <source>Presence penalty:</source>
        <translation>存在惩罚：</translation>
    </message>
    <message>
        <source>Frequency penalty:</source>
        <translation>频率惩罚：</translation>
    </message>
    <message>
        <source>The maximum is more than the model&apos;s context of %1 tokens: an answer stops when the context is full.</source>
        <translation>该上限超过了模型 %1 个词元的上下文：上下文用满时回答就会停止。</translation>
    </message>
    <message>
        <source>When the chat outgrows the context:</source>
        <translation>当聊天超出上下文时：</translation>
    </message>
    <message>
        <source>Leave the oldest messages out</source>
        <translation>略去最早的消息</translation>
    </message>
    <message>
        <source>Stop and say so</source>
        <translation>停止并提示</translation>
    </message>
    <message>
        <source>When the chat outgrows the context</source>
        <translation>当聊天超出上下文时</translation>
    </message>
    <message>
        <source>Context length:</source>
        <translation>上下文长度：</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <source>Applies to every chat with this model. A longer context remembers more of the chat and takes more memory.</source>
        <translation>适用于使用此模型的所有聊天。上下文越长，记住的聊天内容越多，占用的内存也越多。</translation>
    </message>
    <message>
        <source>Context memory:</source>
        <translation>上下文内存：</translation>
    </message>
    <message>
        <source>16-bit, as computed</source>
        <translation>16 位，与计算结果一致</translation>
    </message>
    <message>
        <source>8-bit, about half the memory</source>
        <translation>8 位，约占一半内存</translation>
    </message>
    <message>
        <source>Context memory</source>
        <translation>上下文内存</translation>
    </message>
    <message>
        <source>Layers on the GPU keep a 32-bit copy of the context in this computer&apos;s memory.</source>
        <translation>GPU 上的层会在本机内存中保留一份 32 位的上下文副本。</translation>
    </message>
    <message>
        <source>This model keeps 16-bit: its attention heads do not suit 8-bit blocks.</source>
        <translation>此模型保持 16 位：其注意力头不适合 8 位块。</translation>
    </message>
    <message>
        <source>Guess ahead:</source>
        <translation>提前猜测：</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>From the conversation&apos;s own text</source>
        <translation>根据对话本身的文字</translation>
    </message>
    <message>
        <source>With %1 (%2)</source>
        <comment>a draft model and its size</comment>
        <translation>使用 %1（%2）</translation>
    </message>
    <message>
        <source>With %1</source>
        <comment>a draft model</comment>
        <translation>使用 %1</translation>
    </message>
    <message>
        <source>Guess ahead</source>
        <translation>提前猜测</translation>
    </message>
    <message>
        <source>The model checks several guessed words at once and keeps only what it would have written itself: the same answers, sooner when the guesses are good. A draft model must be a smaller one of the same family; it runs on the processor.</source>
        <translation>模型一次检查多个猜测的词，只保留它自己本来会写出的内容：回答相同，猜得好时更快。草稿模型必须是同一系列中更小的模型；它在处理器上运行。</translation>
    </message>
    <message>
        <source>Reasoning:</source>
        <translation>推理：</translation>
    </message>
    <message>
        <source>The model&apos;s default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source>Low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>High</source>
        <translation>高</translation>
    </message>
    <message>
        <source>How much the model reasons before it answers</source>
        <translation>模型在回答前推理的程度</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
        <translation>尽管提问。按 Enter 发送，按 Shift+Enter 换行。</translation>
    </message>
    <message>
        <source>Open a GGUF model to start chatting, or download one from the catalog. Everything runs on this computer.</source>
        <translation>打开一个 GGUF 模型即可开始聊天，或从目录中下载一个。一切都在这台电脑上运行。</translation>
    </message>
    <message>
        <source>Browse Models…</source>
        <translation>浏览模型…</translation>
    </message>
    <message>
        <source>Delete Message</source>
        <translation>删除消息</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete this message? The messages before and after it stay, and it no longer takes up the model&apos;s context.</source>
        <translation>删除这条消息？它前后的消息都会保留，它也不再占用模型的上下文。</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Copy</source>
        <comment>button: copy code</comment>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the code</source>
        <translation>复制代码</translation>
    </message>
</context>
<context>
    <name>CommandLine</name>
    <message>
        <source>Chat with large language models on your own computer.</source>
        <translation>在您自己的电脑上与大语言模型聊天。</translation>
    </message>
    <message>
        <source>Print the version and build options, then exit.</source>
        <translation>显示版本和构建选项，然后退出。</translation>
    </message>
    <message>
        <source>Load the model in &lt;file&gt; at start.</source>
        <translation>启动时加载 &lt;file&gt; 中的模型。</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Keep chats and settings in &lt;dir&gt;.</source>
        <translation>将聊天记录和设置保存在 &lt;dir&gt; 中。</translation>
    </message>
    <message>
        <source>dir</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>Load the model given with --model, answer one short prompt, print the speed and exit.</source>
        <translation>加载 --model 指定的模型，回答一个简短的提示，显示速度后退出。</translation>
    </message>
    <message>
        <source>--self-test needs a model: add --model &lt;file&gt;.</source>
        <translation>--self-test 需要一个模型：请添加 --model &lt;file&gt;。</translation>
    </message>
    <message>
        <source>Unexpected argument: %1</source>
        <translation>意外的参数：%1</translation>
    </message>
    <message>
        <source>Serve the model over an OpenAI-compatible HTTP API without opening a window (with --model, else the last model used).</source>
        <translation>不打开窗口，通过兼容 OpenAI 的 HTTP API 提供模型（用 --model 指定，否则用上次使用的模型）。</translation>
    </message>
    <message>
        <source>With --serve: listen on &lt;address&gt; (default 127.0.0.1, this computer only).</source>
        <translation>配合 --serve：在 &lt;address&gt; 上监听（默认 127.0.0.1，仅限本机）。</translation>
    </message>
    <message>
        <source>address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>With --serve: listen on &lt;port&gt; (default 8080).</source>
        <translation>配合 --serve：在 &lt;port&gt; 上监听（默认 8080）。</translation>
    </message>
    <message>
        <source>port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>With --serve: require &lt;key&gt; from every client (or set HEARTH_API_KEY).</source>
        <translation>配合 --serve：要求每个客户端提供 &lt;key&gt;（或设置 HEARTH_API_KEY）。</translation>
    </message>
    <message>
        <source>key</source>
        <translation>密钥</translation>
    </message>
    <message>
        <source>With --serve: at most &lt;n&gt; requests running or waiting (default 8); more are refused with 503.</source>
        <translation>配合 --serve：最多 &lt;n&gt; 个请求同时运行或等待（默认 8）；更多的请求以 503 拒绝。</translation>
    </message>
    <message>
        <source>n</source>
        <translation>n</translation>
    </message>
    <message>
        <source>--port needs a number from 0 to 65535.</source>
        <translation>--port 需要 0 到 65535 之间的数字。</translation>
    </message>
    <message>
        <source>--max-queue needs a number from 1 to 1024.</source>
        <translation>--max-queue 需要 1 到 1024 之间的数字。</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Write a message…</source>
        <translation>输入消息…</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Stop</source>
        <comment>button: stop generating</comment>
        <translation>停止</translation>
    </message>
    <message>
        <source>Send</source>
        <comment>button: send the message</comment>
        <translation>发送</translation>
    </message>
    <message>
        <source>Context used</source>
        <translation>已用上下文</translation>
    </message>
    <message>
        <source>Context almost full: %1 of %2 tokens. Start a new chat soon.</source>
        <translation>上下文即将用满：%1 / %2 个词元。请尽快开始新对话。</translation>
    </message>
    <message>
        <source>Context: %1 of %2 tokens</source>
        <translation>上下文：%1 / %2 个词元</translation>
    </message>
    <message>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Open a model first</source>
        <translation>请先打开一个模型</translation>
    </message>
</context>
<context>
    <name>ConvertPanel</name>
    <message>
        <source>Choose the model folder</source>
        <translation>选择模型文件夹</translation>
    </message>
    <message>
        <source>Choose the predictor folder</source>
        <translation>选择预测器文件夹</translation>
    </message>
    <message>
        <source>Choose the activation statistics folder</source>
        <translation>选择激活统计文件夹</translation>
    </message>
    <message>
        <source>Choose a GGUF model to quantize</source>
        <translation>选择要量化的 GGUF 模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>Save the converted model as</source>
        <translation>将转换后的模型另存为</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Hugging Face model folder, or a .gguf file</source>
        <translation>Hugging Face 模型文件夹，或 .gguf 文件</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>GGUF file…</source>
        <translation>GGUF 文件…</translation>
    </message>
    <message>
        <source>Predictors</source>
        <translation>预测器</translation>
    </message>
    <message>
        <source>Optional: folder with model_&lt;n&gt;.pt files (sparse model)</source>
        <translation>可选：包含 model_&lt;n&gt;.pt 文件的文件夹（稀疏模型）</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活统计</translation>
    </message>
    <message>
        <source>Optional: folder with activation_&lt;n&gt;.pt files</source>
        <translation>可选：包含 activation_&lt;n&gt;.pt 文件的文件夹</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>near full quality</source>
        <translation>接近完整质量</translation>
    </message>
    <message>
        <source>full quality</source>
        <translation>完整质量</translation>
    </message>
    <message>
        <source>Save as</source>
        <translation>另存为</translation>
    </message>
    <message>
        <source>Where the .gguf file goes</source>
        <translation>.gguf 文件的保存位置</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>The file exists: replace it</source>
        <translation>文件已存在：替换它</translation>
    </message>
    <message>
        <source>Start</source>
        <comment>button: start converting</comment>
        <translation>开始</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop converting</comment>
        <translation>取消</translation>
    </message>
    <message>
        <source>%1 (%2 %)  ·  output about %3</source>
        <translation>%1（%2 %）  ·  输出约 %3</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1（%2 %）</translation>
    </message>
    <message>
        <source>close to Q8_0, a quarter smaller</source>
        <translation>接近 Q8_0，体积小四分之一</translation>
    </message>
    <message>
        <source>high quality</source>
        <translation>高质量</translation>
    </message>
    <message>
        <source>the usual choice: good quality, small</source>
        <translation>常用选择：质量好、体积小</translation>
    </message>
    <message>
        <source>small; sparse models need it or Q8_0</source>
        <translation>体积小；稀疏模型需要它或 Q8_0</translation>
    </message>
    <message>
        <source>smallest, for small GPUs</source>
        <translation>最小，适合显存小的 GPU</translation>
    </message>
    <message>
        <source>Choose a calibration text</source>
        <translation>选择校准文本</translation>
    </message>
    <message>
        <source>Text files (*.txt *.md)</source>
        <translation>文本文件 (*.txt *.md)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Convert, quantize or make a model sparse</source>
        <translation>转换、量化或稀疏化模型</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>校准</translation>
    </message>
    <message>
        <source>Optional: a text file to calibrate on (default: the built-in text)</source>
        <translation>可选：用于校准的文本文件（默认：内置文本）</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>文件…</translation>
    </message>
    <message>
        <source>skips the neurons that matter least (ReLU: predictors, SwiGLU: thresholds)</source>
        <translation>跳过影响最小的神经元（ReLU：预测器，SwiGLU：阈值）</translation>
    </message>
</context>
<context>
    <name>DialogProblem</name>
    <message>
        <source>Cannot open the file chooser</source>
        <translation>无法打开文件选择器</translation>
    </message>
</context>
<context>
    <name>EngineError</name>
    <message>
        <source>A setting or request is out of range.</source>
        <translation>某项设置或请求超出范围。</translation>
    </message>
    <message>
        <source>The system refused to read or write a file (is the disk full, or was the file moved?).</source>
        <translation>系统拒绝读取或写入文件（磁盘是否已满，或文件是否已被移动？）。</translation>
    </message>
    <message>
        <source>The file is damaged or incomplete.</source>
        <translation>文件已损坏或不完整。</translation>
    </message>
    <message>
        <source>The file uses something Hearth cannot run yet.</source>
        <translation>该文件使用了 Hearth 尚不能运行的内容。</translation>
    </message>
    <message>
        <source>There is not enough memory.</source>
        <translation>内存不足。</translation>
    </message>
    <message>
        <source>It was cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>The conversation does not fit the model&apos;s context.</source>
        <translation>对话超出了模型的上下文。</translation>
    </message>
    <message>
        <source>The input asks for more work or memory than Hearth allows.</source>
        <translation>输入要求的计算量或内存超过了 Hearth 允许的范围。</translation>
    </message>
    <message>
        <source>The result is not as good as asked for.</source>
        <translation>结果没有达到要求的质量。</translation>
    </message>
    <message>
        <source>%1 (Engine: %2)</source>
        <comment>a sentence, then the engine&apos;s English words</comment>
        <translation>%1（引擎：%2）</translation>
    </message>
    <message>
        <source>Hearth met an internal error; please report it with these details.</source>
        <translation>Hearth 遇到内部错误；请连同这些细节一起报告。</translation>
    </message>
</context>
<context>
    <name>FitBadge</name>
    <message>
        <source>~%1 tokens/s</source>
        <translation>约 %1 词元/秒</translation>
    </message>
    <message>
        <source>Unknown fit</source>
        <translation>适配情况未知</translation>
    </message>
    <message>
        <source>Does not fit</source>
        <comment>fit badge</comment>
        <translation>放不下</translation>
    </message>
    <message>
        <source>Needs about %1 of RAM; this computer has %2.</source>
        <translation>需要约 %1 内存；这台电脑有 %2。</translation>
    </message>
    <message>
        <source>Fully on GPU</source>
        <comment>fit badge</comment>
        <translation>完全在 GPU 上</translation>
    </message>
    <message>
        <source>Everything fits in GPU memory (%1 used), %2.</source>
        <translation>全部可放入显存（已用 %1），%2。</translation>
    </message>
    <message>
        <source>CPU only, %1</source>
        <comment>fit badge</comment>
        <translation>仅 CPU，%1</translation>
    </message>
    <message>
        <source>The GPU&apos;s free memory is too small for any part of this model.</source>
        <translation>GPU 的空闲显存太小，放不下此模型的任何部分。</translation>
    </message>
    <message>
        <source>No GPU found: the model runs on the processor.</source>
        <translation>未找到 GPU：模型在处理器上运行。</translation>
    </message>
    <message>
        <source>Hybrid, %1</source>
        <comment>fit badge</comment>
        <translation>混合，%1</translation>
    </message>
    <message>
        <source>%1 of %2 attention layers and %3% of the FFN neurons on the GPU.</source>
        <translation>%2 个注意力层中的 %1 个以及 %3% 的 FFN 神经元在 GPU 上。</translation>
    </message>
    <message>
        <source>%1 of %2 attention layers and %3 of %4 experts on the GPU.</source>
        <translation>%2 个注意力层中的 %1 个和 %4 个专家中的 %3 个在 GPU 上。</translation>
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
        <translation>打开模型…</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>界面语言</translation>
    </message>
    <message>
        <source>Open a Model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>CPU (%1)</source>
        <comment>status bar: compute mode, %1 is the kernel set such as avx2</comment>
        <translation>CPU（%1）</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>最近</translation>
    </message>
    <message>
        <source>Recently used models</source>
        <translation>最近使用的模型</translation>
    </message>
    <message>
        <source>Loading progress</source>
        <translation>加载进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel loading the model</source>
        <translation>取消加载模型</translation>
    </message>
    <message>
        <source>Chat Settings…</source>
        <translation>对话设置…</translation>
    </message>
    <message>
        <source>System prompt and sampling of this chat</source>
        <translation>此对话的系统提示词和采样设置</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Application settings</source>
        <translation>应用设置</translation>
    </message>
    <message>
        <source>Deleted “%1”.</source>
        <translation>已删除“%1”。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo deleting the chat</source>
        <translation>撤销删除对话</translation>
    </message>
    <message>
        <source>Export Chat</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>Markdown files (*.md)</source>
        <translation>Markdown 文件 (*.md)</translation>
    </message>
    <message>
        <source>GPU + CPU (%1)</source>
        <comment>status bar: hybrid compute mode, %1 is the CPU kernel set</comment>
        <translation>GPU + CPU（%1）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Saved the chat to %1.</source>
        <translation>已将对话保存到 %1。</translation>
    </message>
    <message>
        <source>Server…</source>
        <translation>服务器…</translation>
    </message>
    <message>
        <source>Chat with a model on an OpenAI-compatible server</source>
        <translation>与兼容 OpenAI 的服务器上的模型聊天</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>Edited message</source>
        <translation>编辑后的消息</translation>
    </message>
    <message>
        <source>Send Edited</source>
        <translation>发送编辑</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>…</source>
        <comment>placeholder while the first token is computed</comment>
        <translation>…</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Stopped before the end.</source>
        <translation>在结束前停止。</translation>
    </message>
    <message>
        <source>Previous alternative</source>
        <translation>上一个备选</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <comment>alternative answers: this one of how many</comment>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Next alternative</source>
        <translation>下一个备选</translation>
    </message>
    <message>
        <source>Copy</source>
        <comment>button: copy the message</comment>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Answer again</source>
        <translation>重新回答</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Edit and resend the message</source>
        <translation>编辑并重新发送消息</translation>
    </message>
    <message>
        <source>%1 tokens · %2 tokens/s · first token after %3 ms</source>
        <translation>%1 个词元 · %2 词元/秒 · 首个词元用时 %3 毫秒</translation>
    </message>
    <message>
        <source>Interrupted: Hearth closed before this answer was finished.</source>
        <translation>已中断：Hearth 在此回答完成前关闭。</translation>
    </message>
    <message>
        <source>Delete</source>
        <comment>button: delete this one message</comment>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete this message; the rest of the chat stays</source>
        <translation>删除这条消息；聊天的其余部分保留</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>正在思考…</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>推理过程</translation>
    </message>
    <message>
        <source>Hide the reasoning</source>
        <translation>隐藏推理过程</translation>
    </message>
    <message>
        <source>Show the reasoning</source>
        <translation>显示推理过程</translation>
    </message>
    <message>
        <source>Cut off at the length limit: Continue lets it go on; raise “Maximum tokens” in Chat Settings for longer answers.</source>
        <translation>已在长度上限处截断：点击“继续”可接着生成；如需更长的回答，请在“对话设置”中调高“最大词元数”。</translation>
    </message>
    <message>
        <source>Continue</source>
        <comment>button: let a cut-off answer go on</comment>
        <translation>继续</translation>
    </message>
    <message>
        <source>Let the answer go on where it ended</source>
        <translation>从回答中断处继续生成</translation>
    </message>
    <message>
        <source>Cut off: the conversation filled the model&apos;s context. Continue goes on without the oldest messages where Chat Settings lets it leave them out; a longer context or a new chat gives more room.</source>
        <translation>已截断：对话已占满模型的上下文。若“对话设置”允许略去最早的消息，点击“继续”会在略去它们后接着生成；更长的上下文或新对话能提供更多空间。</translation>
    </message>
</context>
<context>
    <name>ModelsCatalogSection</name>
    <message>
        <source>Filter the catalog…</source>
        <translation>筛选目录…</translation>
    </message>
    <message>
        <source>Filter the catalog</source>
        <translation>筛选目录</translation>
    </message>
    <message>
        <source>Fit for:</source>
        <translation>适配对象：</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>A GPU of %1 GB</source>
        <translation>%1 GB 显卡</translation>
    </message>
    <message>
        <source>Show how the models fit this computer or a GPU of another size</source>
        <translation>显示模型在本机或其他容量显卡上的适配情况</translation>
    </message>
    <message>
        <source>Sparse</source>
        <translation>稀疏</translation>
    </message>
    <message>
        <source>Dense</source>
        <translation>稠密</translation>
    </message>
    <message>
        <source>Predictors available: hot neurons on the GPU, cold ones on the CPU.</source>
        <translation>提供预测器：热神经元在 GPU 上，冷神经元在 CPU 上。</translation>
    </message>
    <message>
        <source>No predictors: every neuron is computed.</source>
        <translation>无预测器：计算所有神经元。</translation>
    </message>
    <message>
        <source>GPU Memory…</source>
        <translation>显存…</translation>
    </message>
    <message>
        <source>Plan the GPU memory of %1</source>
        <translation>规划 %1 的显存</translation>
    </message>
    <message>
        <source>%1 · %2 parameters · %3 · licence: %4</source>
        <translation>%1 · %2 参数 · %3 · 许可证：%4</translation>
    </message>
    <message>
        <source>Published as a checkpoint: it is converted to GGUF after downloading.</source>
        <translation>以检查点形式发布：下载后会转换为 GGUF。</translation>
    </message>
    <message>
        <source>All files (%1)</source>
        <translation>所有文件 (%1)</translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>button: download a model file</comment>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>下载 %1</translation>
    </message>
    <message>
        <source>No model in the catalog matches.</source>
        <translation>目录中没有匹配的模型。</translation>
    </message>
    <message>
        <source>Mixture of experts</source>
        <translation>混合专家</translation>
    </message>
    <message>
        <source>Each token runs %1 of %2 experts a layer; only their weights are read.</source>
        <translation>每个 token 在每层运行 %2 个专家中的 %1 个；只读取它们的权重。</translation>
    </message>
</context>
<context>
    <name>ModelsDownloadsSection</name>
    <message>
        <source>Downloads are checked against the repository&apos;s SHA-256 before they are offered for loading.</source>
        <translation>下载的文件在可供加载前会与仓库的 SHA-256 校验。</translation>
    </message>
    <message>
        <source>Clear Finished</source>
        <translation>清除已完成</translation>
    </message>
    <message>
        <source>Remove finished, failed and cancelled downloads from the list</source>
        <translation>从列表中移除已完成、失败和已取消的下载</translation>
    </message>
    <message>
        <source>%1 from %2</source>
        <translation>%1（来自 %2）</translation>
    </message>
    <message>
        <source>Progress of %1</source>
        <translation>%1 的进度</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause downloading %1</source>
        <translation>暂停下载 %1</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Resume downloading %1</source>
        <translation>继续下载 %1</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Try downloading %1 again</source>
        <translation>重新下载 %1</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop a download and delete its partial file</comment>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel downloading %1</source>
        <translation>取消下载 %1</translation>
    </message>
    <message>
        <source>Remove</source>
        <comment>button: forget a download; a finished file stays on disk</comment>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove %1 from the list</source>
        <translation>从列表中移除 %1</translation>
    </message>
    <message>
        <source>Nothing downloaded yet. Pick a model in the catalog or search Hugging Face.</source>
        <translation>尚未下载任何内容。请在目录中选择模型或搜索 Hugging Face。</translation>
    </message>
</context>
<context>
    <name>ModelsInstalledSection</name>
    <message>
        <source>Verified downloads and imported model files. Unfinished or unverified downloads are not listed.</source>
        <translation>已校验的下载和导入的模型文件。未完成或未校验的下载不会列出。</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Add a GGUF model file from this computer</source>
        <translation>从本机添加 GGUF 模型文件</translation>
    </message>
    <message>
        <source>%1 (loaded)</source>
        <translation>%1（已加载）</translation>
    </message>
    <message>
        <source>Sparse</source>
        <translation>稀疏</translation>
    </message>
    <message>
        <source>Dense</source>
        <translation>稠密</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>已导入</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Load</source>
        <comment>button: load this model for chatting</comment>
        <translation>加载</translation>
    </message>
    <message>
        <source>Load %1</source>
        <translation>加载 %1</translation>
    </message>
    <message>
        <source>GPU Memory…</source>
        <translation>显存…</translation>
    </message>
    <message>
        <source>Plan the GPU memory of %1</source>
        <translation>规划 %1 的显存</translation>
    </message>
    <message>
        <source>Show in Folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <source>Open the folder that holds %1</source>
        <translation>打开包含 %1 的文件夹</translation>
    </message>
    <message>
        <source>Remove from List</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <source>Remove %1 from the list; the file stays on disk</source>
        <translation>从列表中移除 %1；文件保留在磁盘上</translation>
    </message>
    <message>
        <source>No models yet. Download one, or import a GGUF file you already have.</source>
        <translation>还没有模型。请下载一个，或导入已有的 GGUF 文件。</translation>
    </message>
    <message>
        <source>Import a Model</source>
        <translation>导入模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 · %4 · %5</source>
        <translation>%1 · %2 · %3 · %4 · %5</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n 层</numerusform>
        </translation>
    </message>
    <message>
        <source>Make Sparse…</source>
        <translation>稀疏化…</translation>
    </message>
    <message>
        <source>Make %1 sparse, so that it skips the neurons that matter least</source>
        <translation>将 %1 稀疏化，跳过影响最小的神经元</translation>
    </message>
    <message>
        <source>Delete…</source>
        <comment>button: delete a downloaded model from the disk</comment>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Delete %1 from the disk</source>
        <translation>从磁盘删除 %1</translation>
    </message>
    <message>
        <source>Delete Model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete %1? Its file is removed from the disk; using it again means downloading it again.</source>
        <translation>删除 %1？其文件将从磁盘删除；再次使用需要重新下载。</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Back to Chat</source>
        <translation>返回聊天</translation>
    </message>
    <message>
        <source>Close the models page and return to the chat</source>
        <translation>关闭模型页面并返回聊天</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Downloads (%1)</source>
        <translation>下载 (%1)</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Installed (%1)</source>
        <translation>已安装 (%1)</translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Convert</source>
        <translation>转换</translation>
    </message>
</context>
<context>
    <name>ModelsSearchSection</name>
    <message>
        <source>Sparse</source>
        <comment>search result: runs with hot/cold neuron placement</comment>
        <translation>稀疏</translation>
    </message>
    <message>
        <source>Dense only</source>
        <comment>search result: runs without predictors</comment>
        <translation>仅稠密</translation>
    </message>
    <message>
        <source>Unsupported</source>
        <comment>search result: Hearth cannot run it</comment>
        <translation>不支持</translation>
    </message>
    <message>
        <source>Search Hugging Face, e.g. ReluLLaMA or PowerInfer</source>
        <translation>搜索 Hugging Face，例如 ReluLLaMA 或 PowerInfer</translation>
    </message>
    <message>
        <source>Search models on Hugging Face</source>
        <translation>在 Hugging Face 上搜索模型</translation>
    </message>
    <message>
        <source>Search</source>
        <comment>button: search Hugging Face</comment>
        <translation>搜索</translation>
    </message>
    <message>
        <source>%1 downloads · %2 likes</source>
        <translation>%1 次下载 · %2 个赞</translation>
    </message>
    <message>
        <source>Search for a model by name. Results say whether Hearth runs them with hot neurons on the GPU (sparse), without (dense only), or not at all.</source>
        <translation>按名称搜索模型。结果会说明 Hearth 能否以热神经元放在 GPU 上的方式运行（稀疏）、只能不用此方式运行（仅稠密），或完全无法运行。</translation>
    </message>
    <message>
        <source>Files of %1</source>
        <translation>%1 的文件</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>button: download a model file</comment>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>下载 %1</translation>
    </message>
    <message>
        <source>No files listed.</source>
        <translation>没有列出文件。</translation>
    </message>
</context>
<context>
    <name>ModelsVramSection</name>
    <message>
        <source>A plan from the catalog&apos;s figures; download the model to run it.</source>
        <translation>根据目录数据做出的规划；下载模型后即可运行。</translation>
    </message>
    <message>
        <source>Load a model, or choose “GPU Memory…” for an installed one, to plan where its layers run.</source>
        <translation>加载一个模型，或对已安装的模型选择“显存…”，以规划各层在哪里运行。</translation>
    </message>
    <message>
        <source>Apply places the running model again with this budget; the conversation stays.</source>
        <translation>“应用”会按此预算重新放置正在运行的模型；对话保持不变。</translation>
    </message>
    <message>
        <source>This model is not running: Apply remembers the budget for its next load.</source>
        <translation>此模型未在运行：“应用”会记住该预算，供下次加载使用。</translation>
    </message>
    <message>
        <source>Placing the model again…</source>
        <translation>正在重新放置模型…</translation>
    </message>
    <message>
        <source>Running now: %1</source>
        <translation>当前运行：%1</translation>
    </message>
    <message>
        <source>Reading the model file…</source>
        <translation>正在读取模型文件…</translation>
    </message>
    <message>
        <source>The chat uses “%1” on the server at %2: it runs in that server&apos;s memory, so there is no GPU budget to plan here.</source>
        <translation>聊天使用的是 %2 服务器上的“%1”：它运行在该服务器的内存中，因此这里没有需要规划的 GPU 预算。</translation>
    </message>
    <message>
        <source>Show the Running Model</source>
        <translation>显示正在运行的模型</translation>
    </message>
</context>
<context>
    <name>Placement</name>
    <message>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <source>CPU only: the GPU %1 failed</source>
        <translation>仅 CPU：GPU %1 出错</translation>
    </message>
    <message>
        <source>GPU %1: %2 of %3 FFN neurons hot</source>
        <translation>GPU %1：%3 个 FFN 神经元中有 %2 个热神经元</translation>
    </message>
    <message numerus="yes">
        <source>GPU %1: %2 of %n layer(s)</source>
        <translation>
            <numerusform>GPU %1：%n 层中的 %2 层</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU memory budget: %1</source>
        <translation>GPU 内存预算：%1</translation>
    </message>
    <message>
        <source>Engine: %1</source>
        <translation>引擎：%1</translation>
    </message>
    <message numerus="yes">
        <source>GPU %1: %2 of %3 experts, attention of %4 of %n layer(s)</source>
        <translation>
            <numerusform>GPU %1：%3 个专家中的 %2 个，%n 层中 %4 层的注意力</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RemoteServerDialog</name>
    <message>
        <source>Connect to a Server</source>
        <translation>连接到服务器</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>The server lists no models.</source>
        <translation>服务器没有列出任何模型。</translation>
    </message>
    <message>
        <source>Server address:</source>
        <translation>服务器地址：</translation>
    </message>
    <message>
        <source>Address of the OpenAI-compatible server</source>
        <translation>兼容 OpenAI 的服务器地址</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>API key for the server</source>
        <translation>服务器的 API 密钥</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Model on the server</source>
        <translation>服务器上的模型</translation>
    </message>
    <message>
        <source>Asking…</source>
        <translation>正在询问…</translation>
    </message>
    <message>
        <source>List Models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <source>Ask the server which models it has</source>
        <translation>询问服务器有哪些模型</translation>
    </message>
    <message>
        <source>The chat sends its messages to this server and stores the answers here, like any other. The local model is unloaded while you use it.</source>
        <translation>聊天会把消息发送到此服务器，并像其他聊天一样把回答保存在本机。使用期间本地模型会被卸载。</translation>
    </message>
</context>
<context>
    <name>ServeCommand</name>
    <message>
        <source>Model: %1 (%2), context of %3 tokens</source>
        <translation>模型：%1（%2），上下文 %3 个词元</translation>
    </message>
    <message>
        <source>Placement: %1</source>
        <translation>放置：%1</translation>
    </message>
    <message>
        <source>Serving the OpenAI-compatible API at %1</source>
        <translation>正在 %1 提供兼容 OpenAI 的 API</translation>
    </message>
    <message>
        <source>No model given (--model FILE) and none used before: serving at %1 without one; requests get 503.</source>
        <translation>未指定模型（--model FILE）且之前未使用过任何模型：在 %1 上无模型提供服务；请求将得到 503。</translation>
    </message>
    <message>
        <source>Stopping the server.</source>
        <translation>正在停止服务器。</translation>
    </message>
    <message>
        <source>Guessing ahead from the conversation&apos;s own text</source>
        <translation>根据对话本身的文字提前猜测</translation>
    </message>
    <message>
        <source>Guessing ahead with %1</source>
        <translation>使用 %1 提前猜测</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Theme:</source>
        <translation>主题：</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Font size:</source>
        <translation>字号：</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Font size in points</source>
        <translation>字号（磅）</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>界面语言</translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation>线程：</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Engine threads</source>
        <translation>引擎线程数</translation>
    </message>
    <message>
        <source>Data folder:</source>
        <translation>数据文件夹：</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>A new data folder is used from the next start.</source>
        <translation>新的数据文件夹将在下次启动时生效。</translation>
    </message>
    <message>
        <source>Default system prompt:</source>
        <translation>默认系统提示词：</translation>
    </message>
    <message>
        <source>Default system prompt</source>
        <translation>默认系统提示词</translation>
    </message>
    <message>
        <source>Default temperature:</source>
        <translation>默认温度：</translation>
    </message>
    <message>
        <source>Default temperature</source>
        <translation>默认温度</translation>
    </message>
    <message>
        <source>Default answer length:</source>
        <translation>默认回答长度：</translation>
    </message>
    <message>
        <source>Default maximum tokens per answer</source>
        <translation>每个回答的默认最大词元数</translation>
    </message>
    <message>
        <source>Hugging Face mirror:</source>
        <translation>Hugging Face 镜像：</translation>
    </message>
    <message>
        <source>Hugging Face endpoint or mirror address</source>
        <translation>Hugging Face 端点或镜像地址</translation>
    </message>
    <message>
        <source>Hugging Face token:</source>
        <translation>Hugging Face 令牌：</translation>
    </message>
    <message>
        <source>For gated models; empty: HF_TOKEN or none</source>
        <translation>用于受限模型；留空：使用 HF_TOKEN 或不使用</translation>
    </message>
    <message>
        <source>Hugging Face access token</source>
        <translation>Hugging Face 访问令牌</translation>
    </message>
    <message>
        <source>%1 pt</source>
        <comment>font size in points</comment>
        <translation>%1 磅</translation>
    </message>
    <message>
        <source>API server:</source>
        <translation>API 服务器：</translation>
    </message>
    <message>
        <source>Serve the loaded model to other programs (OpenAI-compatible)</source>
        <translation>向其他程序提供已加载的模型（兼容 OpenAI）</translation>
    </message>
    <message>
        <source>Server address:</source>
        <translation>服务器地址：</translation>
    </message>
    <message>
        <source>Address the server listens on</source>
        <translation>服务器监听的地址</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>端口：</translation>
    </message>
    <message>
        <source>Port the server listens on</source>
        <translation>服务器监听的端口</translation>
    </message>
    <message>
        <source>Server API key:</source>
        <translation>服务器 API 密钥：</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>API key clients must send</source>
        <translation>客户端必须发送的 API 密钥</translation>
    </message>
    <message>
        <source>Programs on this computer reach the model at %1.</source>
        <translation>本机上的程序可通过 %1 访问模型。</translation>
    </message>
    <message>
        <source>Other computers can reach the model at %1 with the key.</source>
        <translation>其他计算机可凭密钥通过 %1 访问模型。</translation>
    </message>
    <message>
        <source>Other computers can reach the model at %1, and no key is set: anyone on the network may use it.</source>
        <translation>其他计算机可通过 %1 访问模型，且未设置密钥：网络上的任何人都可以使用它。</translation>
    </message>
    <message>
        <source>Off. When on, programs use the URL shown here as their OpenAI base URL.</source>
        <translation>已关闭。开启后，程序把这里显示的 URL 用作 OpenAI 基础 URL。</translation>
    </message>
    <message>
        <source>Sparse models:</source>
        <translation>稀疏模型：</translation>
    </message>
    <message>
        <source>Faster prompts</source>
        <translation>更快的提示处理</translation>
    </message>
    <message>
        <source>Faster prompts for sparse models</source>
        <translation>稀疏模型的更快提示处理</translation>
    </message>
    <message>
        <source>Keeps their feed-forward weights twice in memory, from the next load.</source>
        <translation>在内存中保存两份其前馈权重，从下次加载起生效。</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>New Chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Start a new conversation</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <source>Search chats…</source>
        <translation>搜索对话…</translation>
    </message>
    <message>
        <source>Search all conversations</source>
        <translation>搜索所有对话</translation>
    </message>
    <message>
        <source>Chat actions</source>
        <translation>对话操作</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>导出为 Markdown…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>导出为 JSON…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>No chat matches.</source>
        <translation>没有匹配的对话。</translation>
    </message>
    <message>
        <source>No chats yet.</source>
        <translation>还没有对话。</translation>
    </message>
    <message>
        <source>Rename Chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>Chat title</source>
        <translation>对话标题</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Download, import and manage models</source>
        <translation>下载、导入和管理模型</translation>
    </message>
    <message>
        <source>Models (Ctrl+M)</source>
        <translation>模型 (Ctrl+M)</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>Model: %1 (%2)</source>
        <translation>模型：%1（%2）</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Compute mode</source>
        <translation>计算模式</translation>
    </message>
    <message>
        <source>Answering…</source>
        <translation>正在回答…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>Speed of the last answer</source>
        <translation>上一个回答的速度</translation>
    </message>
    <message>
        <source>Loading… %1%</source>
        <translation>正在加载… %1%</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop loading the model</comment>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel loading the model</source>
        <translation>取消加载模型</translation>
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
        <translation>%1 的显存</translation>
    </message>
    <message>
        <source>GPU memory budget</source>
        <translation>显存预算</translation>
    </message>
    <message>
        <source>No GPU found on this computer. Planning for a GPU of %1 GB.</source>
        <translation>这台电脑上没有 GPU。按 %1 GB 的 GPU 进行规划。</translation>
    </message>
    <message>
        <source>No GPU found on this computer: models run on the processor.</source>
        <translation>这台电脑上没有 GPU：模型在处理器上运行。</translation>
    </message>
    <message>
        <source>Plan for a GPU of:</source>
        <translation>按此容量的 GPU 规划：</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>Plan for a GPU of %1 GB</source>
        <translation>按 %1 GB 的 GPU 规划</translation>
    </message>
    <message>
        <source>Auto</source>
        <comment>VRAM budget follows the free GPU memory</comment>
        <translation>自动</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
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
        <translation>FFN 神经元：热的在 GPU / 冷的在 CPU</translation>
    </message>
    <message>
        <source>L%1</source>
        <comment>layer number</comment>
        <translation>L%1</translation>
    </message>
    <message>
        <source>Attention on the GPU</source>
        <translation>注意力在 GPU 上</translation>
    </message>
    <message>
        <source>Attention on the CPU</source>
        <translation>注意力在 CPU 上</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 neurons on the GPU</source>
        <translation>第 %1 层：%3 个神经元中的 %2 个在 GPU 上</translation>
    </message>
    <message>
        <source>Apply</source>
        <comment>button: use this GPU memory budget</comment>
        <translation>应用</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 experts on the GPU</source>
        <translation>第 %1 层：%3 个专家中的 %2 个在 GPU 上</translation>
    </message>
</context>
<context>
    <name>hearth::BlockListModel</name>
    <message>
        <source>Code</source>
        <comment>header of a code block without a language</comment>
        <translation>代码</translation>
    </message>
</context>
<context>
    <name>hearth::ChatExport</name>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>first token after %1 ms</source>
        <translation>首个词元耗时 %1 毫秒</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
    <message>
        <source>*Model:* `%1`</source>
        <translation>*模型：* `%1`</translation>
    </message>
    <message>
        <source>*Created:* %1</source>
        <translation>*创建时间：* %1</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>cut off at the length limit</source>
        <translation>已在长度上限处截断</translation>
    </message>
    <message>
        <source>cut off: the context was full</source>
        <translation>已截断：上下文已满</translation>
    </message>
</context>
<context>
    <name>hearth::ChatStore</name>
    <message>
        <source>The chat database is locked by another program (%1). Is Hearth running twice?</source>
        <translation>聊天数据库被其他程序锁定（%1）。Hearth 是否运行了两次？</translation>
    </message>
    <message>
        <source>The chat database is read-only (%1).</source>
        <translation>聊天数据库为只读（%1）。</translation>
    </message>
    <message>
        <source>The disk holding the chat database is full (%1).</source>
        <translation>存放聊天数据库的磁盘已满（%1）。</translation>
    </message>
    <message>
        <source>The chat database is damaged or is not a database (%1).</source>
        <translation>聊天数据库已损坏或不是数据库（%1）。</translation>
    </message>
    <message>
        <source>The chat database cannot be opened (%1). Check the folder&apos;s permissions.</source>
        <translation>无法打开聊天数据库（%1）。请检查文件夹权限。</translation>
    </message>
    <message>
        <source>The disk reported an error while reading or writing the chat database (%1).</source>
        <translation>读写聊天数据库时磁盘报告错误（%1）。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation>正在打开 %1</translation>
    </message>
    <message>
        <source>The chat database is not open.</source>
        <translation>聊天数据库未打开。</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only: changes cannot be saved.</source>
        <translation>聊天数据库 %1 为只读：无法保存更改。</translation>
    </message>
    <message>
        <source>Reading %1</source>
        <translation>正在读取 %1</translation>
    </message>
    <message>
        <source>The chat database %1 was written by a newer version of Hearth (schema %2; this version understands up to %3). It was left untouched; please update Hearth.</source>
        <translation>聊天数据库 %1 由更新版本的 Hearth 写入（架构 %2；此版本最高只支持 %3）。数据库未被改动；请更新 Hearth。</translation>
    </message>
    <message>
        <source>The chat database %1 cannot be written.</source>
        <translation>无法写入聊天数据库 %1。</translation>
    </message>
    <message>
        <source>Backing up %1 before upgrading it</source>
        <translation>升级前正在备份 %1</translation>
    </message>
    <message>
        <source>Upgrading %1 to schema %2</source>
        <translation>正在将 %1 升级到架构 %2</translation>
    </message>
    <message>
        <source>Recovering answers interrupted in %1</source>
        <translation>正在恢复 %1 中被中断的回答</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only and needs an upgrade (schema %2, this version uses %3): it cannot be opened until it is writable.</source>
        <translation>聊天数据库 %1 为只读且需要升级（架构 %2，此版本使用 %3）：在可写之前无法打开。</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only: your chats can be read, but nothing new will be saved.</source>
        <translation>聊天数据库 %1 为只读：可以阅读您的对话，但不会保存任何新内容。</translation>
    </message>
    <message>
        <source>Creating a conversation</source>
        <translation>正在创建对话</translation>
    </message>
    <message>
        <source>Reading conversations</source>
        <translation>正在读取对话列表</translation>
    </message>
    <message>
        <source>Reading a conversation</source>
        <translation>正在读取对话</translation>
    </message>
    <message>
        <source>Updating a conversation</source>
        <translation>正在更新对话</translation>
    </message>
    <message>
        <source>There is no conversation %1.</source>
        <translation>不存在对话 %1。</translation>
    </message>
    <message>
        <source>Deleting a conversation</source>
        <translation>正在删除对话</translation>
    </message>
    <message>
        <source>There is no conversation %1 to delete.</source>
        <translation>没有可删除的对话 %1。</translation>
    </message>
    <message>
        <source>Restoring a conversation</source>
        <translation>正在恢复对话</translation>
    </message>
    <message>
        <source>Conversation %1 is not in the bin.</source>
        <translation>对话 %1 不在回收站中。</translation>
    </message>
    <message>
        <source>Emptying the bin</source>
        <translation>正在清空回收站</translation>
    </message>
    <message>
        <source>Reading a message</source>
        <translation>正在读取消息</translation>
    </message>
    <message>
        <source>There is no message %1.</source>
        <translation>不存在消息 %1。</translation>
    </message>
    <message>
        <source>Message %1 belongs to another conversation.</source>
        <translation>消息 %1 属于另一个对话。</translation>
    </message>
    <message>
        <source>Saving a message</source>
        <translation>正在保存消息</translation>
    </message>
    <message>
        <source>Switching branch</source>
        <translation>正在切换分支</translation>
    </message>
    <message>
        <source>Deleting a message</source>
        <translation>正在删除消息</translation>
    </message>
    <message>
        <source>Message %1 is not being streamed.</source>
        <translation>消息 %1 并未在流式生成中。</translation>
    </message>
    <message>
        <source>Saving the answer: %1</source>
        <translation>正在保存回答：%1</translation>
    </message>
    <message>
        <source>Searching</source>
        <translation>正在搜索</translation>
    </message>
    <message>
        <source>There is no conversation %1 to export.</source>
        <translation>没有可导出的对话 %1。</translation>
    </message>
    <message>
        <source>Continuing an answer</source>
        <translation>继续回答</translation>
    </message>
</context>
<context>
    <name>hearth::DownloadManager</name>
    <message>
        <source>Copying %1 was interrupted; import it again.</source>
        <translation>复制 %1 时被中断；请重新导入。</translation>
    </message>
    <message>
        <source>Verified: the SHA-256 checksum matches the one published with the model.</source>
        <translation>已验证：SHA-256 校验和与模型发布的校验和一致。</translation>
    </message>
    <message>
        <source>Only the size was checked: no checksum is published for this file.</source>
        <translation>仅检查了大小：此文件没有公布校验和。</translation>
    </message>
    <message>
        <source>Not verified.</source>
        <translation>未验证。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>无法创建文件夹 %1。</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: the download needs %2 more, %3 is free.</source>
        <translation>%1 的磁盘空间不足：下载还需要 %2，可用空间为 %3。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>The file is damaged: the server sent more data than expected.</source>
        <translation>文件已损坏：服务器发送的数据多于预期。</translation>
    </message>
    <message>
        <source>Too many or unsafe redirects while downloading %1.</source>
        <translation>下载 %1 时重定向过多或不安全。</translation>
    </message>
    <message>
        <source>The connection was closed before the download finished.</source>
        <translation>下载完成前连接已关闭。</translation>
    </message>
    <message numerus="yes">
        <source>The download failed after %n attempt(s): %1</source>
        <translation>
            <numerusform>尝试 %n 次后下载失败：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>The file is damaged (size mismatch: %1 instead of %2); it was deleted.</source>
        <translation>文件已损坏（大小不符：%1，应为 %2）；已将其删除。</translation>
    </message>
    <message>
        <source>The file is damaged (checksum mismatch); it was deleted. Try downloading it again.</source>
        <translation>文件已损坏（校验和不符）；已将其删除。请重新下载。</translation>
    </message>
    <message>
        <source>Cannot replace %1.</source>
        <translation>无法替换 %1。</translation>
    </message>
    <message>
        <source>Cannot rename the finished download to %1.</source>
        <translation>无法将已完成的下载重命名为 %1。</translation>
    </message>
    <message>
        <source>%1 is already in the models folder.</source>
        <translation>%1 已在模型文件夹中。</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: copying the model needs %2, %3 is free.</source>
        <translation>%1 的磁盘空间不足：复制模型需要 %2，可用空间为 %3。</translation>
    </message>
    <message>
        <source>Copying %1 failed: %2</source>
        <translation>复制 %1 失败：%2</translation>
    </message>
    <message>
        <source>Cannot rename the copied file to %1.</source>
        <translation>无法将复制的文件重命名为 %1。</translation>
    </message>
</context>
<context>
    <name>hearth::DownloadQueueStore</name>
    <message>
        <source>Cannot open the download list %1.</source>
        <translation>无法打开下载列表 %1。</translation>
    </message>
    <message>
        <source>The download list could not be prepared.</source>
        <translation>无法准备下载列表。</translation>
    </message>
    <message>
        <source>The download list was written by a newer version of Hearth and is left untouched.</source>
        <translation>下载列表由更新版本的 Hearth 写入，已保持原样。</translation>
    </message>
    <message>
        <source>The download could not be saved.</source>
        <translation>无法保存下载。</translation>
    </message>
    <message>
        <source>The download could not be removed.</source>
        <translation>无法删除下载。</translation>
    </message>
    <message>
        <source>The download list could not be read.</source>
        <translation>无法读取下载列表。</translation>
    </message>
</context>
<context>
    <name>hearth::FileHasher</name>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
</context>
<context>
    <name>hearth::GgufProbe</name>
    <message>
        <source>%1 does not exist or is not a file.</source>
        <translation>%1 不存在或不是文件。</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is too small to be a GGUF model.</source>
        <translation>%1 太小，不可能是 GGUF 模型。</translation>
    </message>
    <message>
        <source>%1 is not a GGUF model file.</source>
        <translation>%1 不是 GGUF 模型文件。</translation>
    </message>
    <message>
        <source>%1 uses GGUF version %2, which Hearth cannot read.</source>
        <translation>%1 使用 GGUF 版本 %2，Hearth 无法读取。</translation>
    </message>
    <message>
        <source>%1 has a damaged GGUF header.</source>
        <translation>%1 的 GGUF 文件头已损坏。</translation>
    </message>
</context>
<context>
    <name>hearth::HuggingFaceApi</name>
    <message>
        <source>%1 needs a Hugging Face access token. If the model is gated, accept the licence on the model&apos;s page on the Hugging Face website and set a token in Settings.</source>
        <translation>%1 需要 Hugging Face 访问令牌。如果该模型受限，请在 Hugging Face 网站的模型页面上接受许可协议，并在“设置”中填写令牌。</translation>
    </message>
    <message>
        <source>Access to %1 was refused. The model is probably gated: accept the licence on the model&apos;s page on the Hugging Face website and check that your token can read it.</source>
        <translation>访问 %1 被拒绝。该模型可能受限：请在 Hugging Face 网站的模型页面上接受许可协议，并确认您的令牌有读取权限。</translation>
    </message>
    <message>
        <source>%1 was not found. Check the repository name, the revision and the file name.</source>
        <translation>未找到 %1。请检查仓库名称、版本和文件名。</translation>
    </message>
    <message numerus="yes">
        <source>Hugging Face is limiting requests (HTTP 429); try again in %n second(s).</source>
        <translation>
            <numerusform>Hugging Face 正在限制请求（HTTP 429）；请在 %n 秒后重试。</numerusform>
        </translation>
    </message>
    <message>
        <source>Hugging Face is limiting requests (HTTP 429); try again later.</source>
        <translation>Hugging Face 正在限制请求（HTTP 429）；请稍后重试。</translation>
    </message>
    <message>
        <source>The server had a problem (HTTP %1) while fetching %2. Try again later.</source>
        <translation>获取 %2 时服务器出现问题（HTTP %1）。请稍后重试。</translation>
    </message>
    <message>
        <source>The server answered HTTP %1 for %2.</source>
        <translation>服务器对 %2 返回了 HTTP %1。</translation>
    </message>
    <message>
        <source>Cannot find the server %1. Check the internet connection.</source>
        <translation>找不到服务器 %1。请检查网络连接。</translation>
    </message>
    <message>
        <source>The server %1 refused the connection.</source>
        <translation>服务器 %1 拒绝了连接。</translation>
    </message>
    <message>
        <source>The connection was closed before the download finished.</source>
        <translation>下载完成前连接已关闭。</translation>
    </message>
    <message>
        <source>The connection stalled (no data for a while).</source>
        <translation>连接停滞（一段时间内没有数据）。</translation>
    </message>
    <message>
        <source>A secure connection to %1 could not be established.</source>
        <translation>无法与 %1 建立安全连接。</translation>
    </message>
    <message>
        <source>Network error: %1</source>
        <translation>网络错误：%1</translation>
    </message>
    <message>
        <source>The repository listing could not be read (unexpected answer from the server).</source>
        <translation>无法读取仓库列表（服务器返回了意外的响应）。</translation>
    </message>
    <message>
        <source>The search results could not be read (unexpected answer from the server).</source>
        <translation>无法读取搜索结果（服务器返回了意外的响应）。</translation>
    </message>
    <message>
        <source>Too many or unsafe redirects while fetching %1.</source>
        <translation>获取 %1 时重定向过多或不安全。</translation>
    </message>
</context>
<context>
    <name>hearth::app::ChatController</name>
    <message>
        <source>The application was closed while answering.</source>
        <translation>应用在回答过程中被关闭。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Chat</source>
        <comment>file name of an exported chat without a title</comment>
        <translation>对话</translation>
    </message>
    <message numerus="yes">
        <source>%n earlier message(s) no longer fit the model&apos;s context and were left out of this answer.</source>
        <translation>
            <numerusform>有 %n 条较早的消息超出了模型的上下文，本次回答未包含它们。</numerusform>
        </translation>
    </message>
    <message>
        <source>The model is not ready to answer.</source>
        <translation>模型尚未准备好回答。</translation>
    </message>
    <message>
        <source>This chat is still being answered: stop the answer before deleting the chat.</source>
        <translation>此对话仍在回答中：请先停止回答，再删除此对话。</translation>
    </message>
</context>
<context>
    <name>hearth::app::EngineWorker</name>
    <message>
        <source>The model file %1 does not exist.</source>
        <translation>模型文件 %1 不存在。</translation>
    </message>
    <message>
        <source>The model file %1 cannot be read.</source>
        <translation>无法读取模型文件 %1。</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>无法加载 %1：%2</translation>
    </message>
    <message>
        <source>Could not start a session with %1: %2</source>
        <translation>无法使用 %1 启动会话：%2</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <source>The chat template failed: %1</source>
        <translation>聊天模板出错：%1</translation>
    </message>
    <message>
        <source>The prompt is empty.</source>
        <translation>提示为空。</translation>
    </message>
    <message>
        <source>Loading %1 was cancelled.</source>
        <translation>已取消加载 %1。</translation>
    </message>
    <message>
        <source>Could not place the model for this budget: %1</source>
        <translation>无法按此预算放置模型：%1</translation>
    </message>
    <message>
        <source>Placing the model again was cancelled; the previous placement is kept.</source>
        <translation>已取消重新放置模型；保留之前的放置。</translation>
    </message>
    <message>
        <source>Could not restore the previous placement: %1</source>
        <translation>无法恢复之前的放置：%1</translation>
    </message>
    <message>
        <source>The conversation (%1 tokens) no longer fits the model&apos;s context of %2 tokens. Delete earlier messages, let Chat Settings leave the oldest out, or start a new chat.</source>
        <translation>对话（%1 个词元）已超出模型 %2 个词元的上下文。请删除较早的消息、在聊天设置中选择略去最早的消息，或开始新的聊天。</translation>
    </message>
    <message>
        <source>%1 read from the disk as needed (not enough free memory)</source>
        <translation>%1 按需从磁盘读取（可用内存不足）</translation>
    </message>
    <message>
        <source>The draft model %1 cannot be loaded: %2</source>
        <translation>无法加载草稿模型 %1：%2</translation>
    </message>
    <message>
        <source>The draft model %1 cannot guess for this model: %2</source>
        <translation>草稿模型 %1 无法为此模型猜测：%2</translation>
    </message>
    <message>
        <source>%1 more memory for faster prompts</source>
        <translation>为更快的提示处理多用 %1 内存</translation>
    </message>
</context>
<context>
    <name>hearth::app::FileDialogSupport</name>
    <message>
        <source>The file chooser cannot open because this installation lacks the Qt module %1. Install the package %2 (for example with “sudo apt install %2”) and start Hearth again.</source>
        <comment>%1 is a list of QML module names, %2 a list of package names</comment>
        <translation>无法打开文件选择器：此安装缺少 Qt 模块 %1。请安装软件包 %2（例如运行“sudo apt install %2”），然后重新启动 Hearth。</translation>
    </message>
</context>
<context>
    <name>hearth::app::ModelSession</name>
    <message>
        <source>This model&apos;s own chat template cannot be used (%1), so Hearth formats the chat in its built-in “%2” style; answers may be less accurate.</source>
        <translation>无法使用此模型自带的聊天模板（%1），因此 Hearth 改用其内置的“%2”格式；回答可能不太准确。</translation>
    </message>
    <message>
        <source>Remote: %1</source>
        <translation>远程：%1</translation>
    </message>
    <message>
        <source>Remote: the model runs on %1, not on this computer.</source>
        <translation>远程：模型运行在 %1 上，而不是本机。</translation>
    </message>
    <message>
        <source>The server offers no models.</source>
        <translation>服务器没有提供任何模型。</translation>
    </message>
    <message>
        <source>The server does not offer a model named “%1”.</source>
        <translation>服务器没有名为“%1”的模型。</translation>
    </message>
    <message>
        <source>OpenAI-compatible server at %1</source>
        <translation>位于 %1 的兼容 OpenAI 的服务器</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2 of memory)</source>
        <translation>%1（内存 %2）</translation>
    </message>
    <message>
        <source>The GPU stopped working (%1). The model goes on with the CPU, more slowly; load it again to use the GPU.</source>
        <translation>GPU 停止工作（%1）。模型改用 CPU 继续运行，速度较慢；重新加载模型即可再次使用 GPU。</translation>
    </message>
    <message>
        <source>Last answer: %1 of %2 guessed tokens were right (%3 %).</source>
        <translation>上一个回答：猜测的 %2 个词元中有 %1 个正确（%3 %）。</translation>
    </message>
</context>
<context>
    <name>hearth::models::CatalogDescription</name>
    <message>
        <source>Alibaba&apos;s Qwen 3, 4B: a reasoning model that thinks in &lt;think&gt; blocks (shown folded) before it answers; 32k-token context.</source>
        <translation>阿里巴巴的 Qwen 3 4B：一个推理模型，回答前会在 &lt;think&gt; 块中思考（折叠显示）；32k token 上下文。</translation>
    </message>
    <message>
        <source>Qwen 3, 8B: strong reasoning, coding and many languages; thinks before it answers; 32k-token context.</source>
        <translation>Qwen 3 8B：推理、编程和多语言能力强；回答前先思考；32k token 上下文。</translation>
    </message>
    <message>
        <source>Qwen 3, 14B: the largest dense Qwen 3 that suits 16 GB of RAM; thinks before it answers; 32k-token context.</source>
        <translation>Qwen 3 14B：适合 16 GB 内存的最大稠密 Qwen 3；回答前先思考；32k token 上下文。</translation>
    </message>
    <message>
        <source>Meta&apos;s Llama 3.1 8B Instruct: a capable general assistant with a 128k-token context.</source>
        <translation>Meta 的 Llama 3.1 8B Instruct：能干的通用助手，128k token 上下文。</translation>
    </message>
    <message>
        <source>Meta&apos;s Llama 3.2 3B Instruct: small and quick, good for laptops; 128k-token context.</source>
        <translation>Meta 的 Llama 3.2 3B Instruct：小巧快速，适合笔记本电脑；128k token 上下文。</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 4B (text): five local layers to one global keep long chats small in memory; 128k-token context.</source>
        <translation>Google 的 Gemma 3 4B（文本）：每五个局部层配一个全局层，长对话占用内存少；128k token 上下文。</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 12B (text): strong writing and many languages; 128k-token context.</source>
        <translation>Google 的 Gemma 3 12B（文本）：写作和多语言能力强；128k token 上下文。</translation>
    </message>
    <message>
        <source>Mistral 7B Instruct v0.3: a dependable all-rounder with a 32k-token context.</source>
        <translation>Mistral 7B Instruct v0.3：可靠的全能模型，32k token 上下文。</translation>
    </message>
    <message>
        <source>Microsoft&apos;s Phi-4-mini: 3.8B, good at reasoning and maths for its size; 128k-token context.</source>
        <translation>Microsoft 的 Phi-4-mini：3.8B，就其规模而言擅长推理和数学；128k token 上下文。</translation>
    </message>
    <message>
        <source>Llama 2 7B fine-tuned to ReLU-gated FFNs; PowerInfer file with predictors. About 70% of FFN neurons stay silent per token.</source>
        <translation>微调为 ReLU 门控 FFN 的 Llama 2 7B；带预测器的 PowerInfer 文件。每个 token 约 70% 的 FFN 神经元保持静默。</translation>
    </message>
    <message>
        <source>Llama 2 13B with ReLU-gated FFNs and predictors, ready for hybrid GPU/CPU inference.</source>
        <translation>带 ReLU 门控 FFN 和预测器的 Llama 2 13B，可直接用于 GPU/CPU 混合推理。</translation>
    </message>
    <message>
        <source>Llama 2 70B with ReLU-gated FFNs and predictors. Needs about 40 GB of RAM plus GPU memory.</source>
        <translation>带 ReLU 门控 FFN 和预测器的 Llama 2 70B。需要约 40 GB 内存外加显存。</translation>
    </message>
    <message>
        <source>Llama 2 7B trained for high activation sparsity (about 89% of FFN neurons inactive) with quality close to the original.</source>
        <translation>为高激活稀疏度训练的 Llama 2 7B（约 89% 的 FFN 神经元不激活），质量接近原模型。</translation>
    </message>
    <message>
        <source>Llama 2 13B trained for high activation sparsity (about 89%); PowerInfer file with predictors.</source>
        <translation>为高激活稀疏度训练的 Llama 2 13B（约 89%）；带预测器的 PowerInfer 文件。</translation>
    </message>
    <message>
        <source>Mistral-sized model with ReLU on both gate and up: keeping only the top 10% of neurons barely changes perplexity (6.48 to 6.52).</source>
        <translation>Mistral 规模的模型，gate 和 up 都使用 ReLU：只保留前 10% 的神经元几乎不改变困惑度（6.48 变为 6.52）。</translation>
    </message>
    <message>
        <source>Bamboo-7B tuned for chat with DPO; the fastest sparse chat model in the catalog.</source>
        <translation>用 DPO 调成对话模型的 Bamboo-7B；目录中最快的稀疏对话模型。</translation>
    </message>
    <message>
        <source>Falcon 40B with ReLU FFNs and predictors; PowerInfer&apos;s headline model (up to 11.7x llama.cpp in FP16 on one RTX 4090).</source>
        <translation>带 ReLU FFN 和预测器的 Falcon 40B；PowerInfer 的代表模型（在一块 RTX 4090 上 FP16 最高达 llama.cpp 的 11.7 倍）。</translation>
    </message>
    <message>
        <source>Original Hugging Face weights; Hearth converts them to GGUF and adds the predictors from PowerInfer/ReluLLaMA-7B-Predictor.</source>
        <translation>原始 Hugging Face 权重；Hearth 将其转换为 GGUF 并加入 PowerInfer/ReluLLaMA-7B-Predictor 的预测器。</translation>
    </message>
    <message>
        <source>Original weights, converted on this machine with the predictors from PowerInfer/ReluLLaMA-13B-Predictor.</source>
        <translation>原始权重，在本机转换，并加入 PowerInfer/ReluLLaMA-13B-Predictor 的预测器。</translation>
    </message>
    <message>
        <source>Original FP32 weights (very large); converted on this machine with the predictors from PowerInfer/ReluFalcon-40B-Predictor.</source>
        <translation>原始 FP32 权重（非常大）；在本机转换，并加入 PowerInfer/ReluFalcon-40B-Predictor 的预测器。</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 1.3B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta 的 OPT 1.3B：原生使用 ReLU，因此激活是稀疏的，但没有为它提供预测器；转换为 GGUF 后以稠密方式运行。</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 2.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta 的 OPT 2.7B：原生使用 ReLU，因此激活是稀疏的，但没有为它提供预测器；转换为 GGUF 后以稠密方式运行。</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 6.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta 的 OPT 6.7B：原生使用 ReLU，因此激活是稀疏的，但没有为它提供预测器；转换为 GGUF 后以稠密方式运行。</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 13B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta 的 OPT 13B：原生使用 ReLU，因此激活是稀疏的，但没有为它提供预测器；转换为 GGUF 后以稠密方式运行。</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 30B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta 的 OPT 30B：原生使用 ReLU，因此激活是稀疏的，但没有为它提供预测器；转换为 GGUF 后以稠密方式运行。</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 66B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>Meta 的 OPT 66B：原生使用 ReLU，因此激活是稀疏的，但没有为它提供预测器；转换为 GGUF 后以稠密方式运行。</translation>
    </message>
    <message>
        <source>Qwen 3, 30B mixture of experts: each token runs 3B of its parameters, so it answers about as fast as a 3B model with the knowledge of a much larger one; thinks before it answers.</source>
        <translation>Qwen 3 30B 混合专家模型：每个 token 只运行其中 3B 参数，回答速度约与 3B 模型相当，却拥有大得多的模型的知识；回答前先思考。</translation>
    </message>
    <message>
        <source>OpenAI&apos;s gpt-oss-20b: a mixture of experts that runs 3.6B of its 21B parameters per token, in OpenAI&apos;s own 4-bit MXFP4 weights; reasons before it answers (shown folded).</source>
        <translation>OpenAI 的 gpt-oss-20b：一个混合专家模型，每个词元只运行其 210 亿参数中的 36 亿，采用 OpenAI 自己的 4 位 MXFP4 权重；回答前先推理（折叠显示）。</translation>
    </message>
</context>
<context>
    <name>hearth::models::ConversionJob</name>
    <message>
        <source>%1 appeared while converting.</source>
        <translation>%1 在转换期间出现。</translation>
    </message>
    <message>
        <source>Choose a model folder to convert.</source>
        <translation>请选择要转换的模型文件夹。</translation>
    </message>
    <message>
        <source>%1 is neither a model folder nor a GGUF file.</source>
        <translation>%1 既不是模型文件夹，也不是 GGUF 文件。</translation>
    </message>
    <message>
        <source>%1 has no config.json. Choose the folder of a Hugging Face model.</source>
        <translation>%1 中没有 config.json。请选择 Hugging Face 模型的文件夹。</translation>
    </message>
    <message>
        <source>The folder %1 does not exist.</source>
        <translation>文件夹 %1 不存在。</translation>
    </message>
    <message>
        <source>Predictors and activation statistics can only be added when converting a model folder.</source>
        <translation>只有在转换模型文件夹时才能添加预测器和激活统计。</translation>
    </message>
    <message>
        <source>Choose where to save the converted model.</source>
        <translation>请选择转换后模型的保存位置。</translation>
    </message>
    <message>
        <source>The converted model must not replace the model it is made from.</source>
        <translation>转换后的模型不能替换其来源模型。</translation>
    </message>
    <message>
        <source>%1 already exists. Choose another name, or allow replacing it.</source>
        <translation>%1 已存在。请选择其他名称，或允许替换它。</translation>
    </message>
    <message>
        <source>Reading the model</source>
        <translation>正在读取模型</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Cancelled. No file was written.</source>
        <translation>已取消。未写入任何文件。</translation>
    </message>
    <message>
        <source>This model cannot be converted: %1</source>
        <translation>无法转换此模型：%1</translation>
    </message>
    <message>
        <source>A file of the model is damaged, incomplete or unsafe: %1</source>
        <translation>模型的某个文件已损坏、不完整或不安全：%1</translation>
    </message>
    <message>
        <source>The model could not be read: %1</source>
        <translation>无法读取模型：%1</translation>
    </message>
    <message>
        <source>Checking free disk space</source>
        <translation>正在检查可用磁盘空间</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: the new model needs %2, but only %3 are free.</source>
        <translation>%1 中的磁盘空间不足：新模型需要 %2，但只有 %3 可用。</translation>
    </message>
    <message>
        <source>Quantizing to %1</source>
        <translation>正在量化为 %1</translation>
    </message>
    <message>
        <source>Converting to %1</source>
        <translation>正在转换为 %1</translation>
    </message>
    <message>
        <source>Writing the model failed: %1</source>
        <translation>写入模型失败：%1</translation>
    </message>
    <message>
        <source>The conversion failed: %1</source>
        <translation>转换失败：%1</translation>
    </message>
    <message>
        <source>Checking that the new model loads and answers</source>
        <translation>正在检查新模型能否加载并作答</translation>
    </message>
    <message>
        <source>The new model failed its check, so it was not kept: %1</source>
        <translation>新模型未通过检查，因此未保留：%1</translation>
    </message>
    <message>
        <source>The new model could not be saved as %1: %2</source>
        <translation>无法将新模型保存为 %1：%2</translation>
    </message>
    <message>
        <source>Saved %1 (%2).</source>
        <translation>已保存 %1（%2）。</translation>
    </message>
    <message>
        <source>The calibration text %1 does not exist.</source>
        <translation>校准文本 %1 不存在。</translation>
    </message>
    <message>
        <source>This model cannot be made sparse: %1</source>
        <translation>此模型无法稀疏化：%1</translation>
    </message>
    <message>
        <source>The calibration text %1 cannot be read: %2</source>
        <translation>无法读取校准文本 %1：%2</translation>
    </message>
    <message>
        <source>The sparse model answers worse than the dense one allows, so it was not kept: %1</source>
        <translation>稀疏模型的表现差于稠密模型所允许的范围，因此未保留：%1</translation>
    </message>
    <message>
        <source>Making the model sparse failed: %1</source>
        <translation>稀疏化模型失败：%1</translation>
    </message>
    <message>
        <source>Making the model sparse and checking it</source>
        <translation>正在稀疏化模型并检查</translation>
    </message>
    <message>
        <source>perplexity %1 instead of %2; expected decode speed-up %3×.</source>
        <translation>困惑度 %1（原为 %2）；预计解码加速 %3×。</translation>
    </message>
    <message>
        <source>On text it was not calibrated on, a token skips %1% of the neurons&apos; outputs and reads %2% of the up projection; %3</source>
        <translation>在未用于校准的文本上，每个词元跳过 %1% 的神经元输出，读取 %2% 的 up 投影；%3</translation>
    </message>
    <message>
        <source>On text it was not fitted to, the predictors find %1% of the neurons that fire and select %2% of all; %3</source>
        <translation>在未用于拟合的文本上，预测器找到 %1% 的激活神经元，并选中全部神经元的 %2%；%3</translation>
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
        <translation>剩余不到一分钟</translation>
    </message>
    <message numerus="yes">
        <source>about %n min left</source>
        <translation>
            <numerusform>大约剩余 %n 分钟</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n h left</source>
        <translation>
            <numerusform>大约剩余 %n 小时</numerusform>
        </translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>下载中</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>校验中</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
</context>
<context>
    <name>hearth::models::GpuInfo</name>
    <message>
        <source>Simulated GPU (%1 GB)</source>
        <translation>模拟 GPU（%1 GB）</translation>
    </message>
</context>
<context>
    <name>hearth::models::HubSearch</name>
    <message>
        <source>Predictor weights only: download the model they belong to.</source>
        <translation>仅包含预测器权重：请下载它们所属的模型。</translation>
    </message>
    <message>
        <source>PowerInfer GGUF with predictors: hot neurons on the GPU, the rest on the CPU.</source>
        <translation>带预测器的 PowerInfer GGUF：热神经元在 GPU 上，其余在 CPU 上。</translation>
    </message>
    <message>
        <source>Converted to GGUF on this computer, with the predictors from %1.</source>
        <translation>在本机转换为 GGUF，使用来自 %1 的预测器。</translation>
    </message>
    <message>
        <source>The architecture could not be determined from the repository.</source>
        <translation>无法从仓库确定模型架构。</translation>
    </message>
    <message>
        <source>The %1 architecture is not supported.</source>
        <translation>不支持 %1 架构。</translation>
    </message>
    <message>
        <source>GGUF without predictors: runs dense (whole layers on the GPU as they fit).</source>
        <translation>不带预测器的 GGUF：以稠密方式运行（能放下的整层放在 GPU 上）。</translation>
    </message>
    <message>
        <source>No predictors: converted to GGUF on this computer and run dense.</source>
        <translation>没有预测器：在本机转换为 GGUF 并以稠密方式运行。</translation>
    </message>
    <message>
        <source>No GGUF, safetensors or PyTorch weights found.</source>
        <translation>未找到 GGUF、safetensors 或 PyTorch 权重。</translation>
    </message>
    <message>
        <source>Hearth runs %1 models from GGUF files but cannot convert this checkpoint: look for a GGUF version.</source>
        <translation>Hearth 可以运行 GGUF 格式的 %1 模型，但无法转换此检查点：请寻找 GGUF 版本。</translation>
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
        <translation>无法读取模型结构：%1</translation>
    </message>
    <message>
        <source>%1 is an unfinished download and cannot be imported.</source>
        <translation>%1 是未完成的下载，无法导入。</translation>
    </message>
    <message>
        <source>%1 cannot be used: %2</source>
        <translation>无法使用 %1：%2</translation>
    </message>
    <message>
        <source>Choose a model file to import.</source>
        <translation>请选择要导入的模型文件。</translation>
    </message>
    <message>
        <source>%1 is already in the list.</source>
        <translation>%1 已在列表中。</translation>
    </message>
    <message>
        <source>Cannot delete %1: %2</source>
        <translation>无法删除 %1：%2</translation>
    </message>
</context>
<context>
    <name>hearth::models::ModelManager</name>
    <message>
        <source>Unknown catalog model &quot;%1&quot;.</source>
        <translation>未知的目录模型“%1”。</translation>
    </message>
    <message>
        <source>%1 has no file named %2.</source>
        <translation>%1 中没有名为 %2 的文件。</translation>
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
        <translation>无法为此模型制定方案：%1</translation>
    </message>
    <message>
        <source>Unknown catalog model &quot;%1&quot;.</source>
        <translation>未知的目录模型“%1”。</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Planned GPU of %1 GB</source>
        <translation>计划的 %1 GB GPU</translation>
    </message>
    <message>
        <source>Auto (%1)</source>
        <translation>自动（%1）</translation>
    </message>
    <message>
        <source>Not enough RAM: this placement needs %1 besides the GPU&apos;s share.</source>
        <translation>内存不足：除 GPU 部分外，此方案还需要 %1。</translation>
    </message>
    <message>
        <source>Everything is on the GPU.</source>
        <translation>全部在 GPU 上。</translation>
    </message>
    <message>
        <source>No GPU memory budget: everything runs on the CPU.</source>
        <translation>没有显存预算：全部在 CPU 上运行。</translation>
    </message>
    <message>
        <source>The budget is below the GPU&apos;s fixed costs: everything runs on the CPU.</source>
        <translation>预算低于 GPU 的固定开销：全部在 CPU 上运行。</translation>
    </message>
    <message>
        <source>%1 of %2 layers&apos; attention and %3 of %4 FFN neurons on the GPU; the rest on the CPU.</source>
        <translation>%2 层中 %1 层的注意力以及 %4 个 FFN 神经元中的 %3 个在 GPU 上；其余在 CPU 上。</translation>
    </message>
    <message>
        <source>Weights %1 · KV cache %2 · Scratch %3 · Reserve %4 · Total %5 of %6</source>
        <translation>权重 %1 · KV 缓存 %2 · 临时缓冲 %3 · 预留 %4 · 合计 %5 / %6</translation>
    </message>
    <message>
        <source>Expected speed: %1</source>
        <translation>预计速度：%1</translation>
    </message>
    <message>
        <source>Hot neurons on the GPU: %1 of %2</source>
        <translation>GPU 上的热神经元：%1 / %2</translation>
    </message>
    <message>
        <source>Layers on the GPU: %1 of %2 (dense model)</source>
        <translation>GPU 上的层：%1 / %2（稠密模型）</translation>
    </message>
    <message>
        <source>%1 of %2 layers&apos; attention and %3 of %4 experts on the GPU, the most used first; the rest on the CPU.</source>
        <translation>%2 层中 %1 层的注意力和 %4 个专家中的 %3 个在 GPU 上，最常用的优先；其余在 CPU 上。</translation>
    </message>
    <message>
        <source>Experts on the GPU: %1 of %2</source>
        <translation>GPU 上的专家：%2 个中的 %1 个</translation>
    </message>
</context>
<context>
    <name>hearth::openai::ApiServer</name>
    <message>
        <source>Cannot listen on %1:%2. Another program may use that port, or the address is not this computer&apos;s.</source>
        <translation>无法在 %1:%2 上监听。可能有其他程序占用了该端口，或该地址不属于本机。</translation>
    </message>
</context>
<context>
    <name>hearth::openai::RemoteEngine</name>
    <message>
        <source>The server refused the API key (%1).</source>
        <translation>服务器拒绝了 API 密钥（%1）。</translation>
    </message>
    <message>
        <source>The server answered %1: %2</source>
        <translation>服务器返回 %1：%2</translation>
    </message>
    <message>
        <source>The server answered %1.</source>
        <translation>服务器返回 %1。</translation>
    </message>
    <message>
        <source>Cannot reach the server: %1</source>
        <translation>无法连接服务器：%1</translation>
    </message>
    <message>
        <source>That is not a server address. Type one like http://127.0.0.1:8080/v1.</source>
        <translation>这不是服务器地址。请输入类似 http://127.0.0.1:8080/v1 的地址。</translation>
    </message>
    <message>
        <source>The server&apos;s answer is not a list of models; is this an OpenAI-compatible server?</source>
        <translation>服务器的回答不是模型列表；这是兼容 OpenAI 的服务器吗？</translation>
    </message>
    <message>
        <source>Another answer is still streaming from the server.</source>
        <translation>另一个回答仍在从服务器流式传输。</translation>
    </message>
    <message>
        <source>The server failed while answering: %1</source>
        <translation>服务器在回答时出错：%1</translation>
    </message>
    <message>
        <source>The server closed the connection before the answer was complete.</source>
        <translation>服务器在回答完成前关闭了连接。</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Cannot create the data folder %1.</source>
        <translation>无法创建数据文件夹 %1。</translation>
    </message>
</context>
</TS>
