<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ChatView</name>
    <message>
        <source>…</source>
        <comment>placeholder while the first token is computed</comment>
        <translation>…</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>Open a GGUF model to start chatting. Everything runs on this computer.</source>
        <translation>打开一个 GGUF 模型即可开始聊天。一切都在这台电脑上运行。</translation>
    </message>
    <message>
        <source>Loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
        <translation>尽管提问。按 Enter 发送，按 Shift+Enter 换行。</translation>
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
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Open a model first</source>
        <translation>请先打开一个模型</translation>
    </message>
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
        <source>New Chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Start a new conversation</source>
        <translation>开始新的对话</translation>
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
        <source>Loading…</source>
        <translation>正在加载…</translation>
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
</context>
<context>
    <name>main</name>
    <message>
        <source>Cannot create the data folder %1.</source>
        <translation>无法创建数据文件夹 %1。</translation>
    </message>
</context>
</TS>
