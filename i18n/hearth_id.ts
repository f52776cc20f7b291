<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="id">
<context>
    <name>CatalogEntry</name>
    <message>
        <source>The model catalog is not valid JSON: %1</source>
        <translation>Katalog model bukan JSON yang valid: %1</translation>
    </message>
    <message>
        <source>The model catalog has an unknown version.</source>
        <translation>Katalog model memiliki versi yang tidak dikenal.</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; has a file without name, quantization or size.</source>
        <translation>Entri katalog &quot;%1&quot; memiliki berkas tanpa nama, kuantisasi, atau ukuran.</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; lacks a required field.</source>
        <translation>Entri katalog &quot;%1&quot; tidak memiliki bidang wajib.</translation>
    </message>
    <message>
        <source>Catalog entry &quot;%1&quot; appears twice.</source>
        <translation>Entri katalog &quot;%1&quot; muncul dua kali.</translation>
    </message>
    <message>
        <source>The model catalog is empty.</source>
        <translation>Katalog model kosong.</translation>
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
            <numerusform>%n bita</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChatSettingsDialog</name>
    <message>
        <source>Chat Settings</source>
        <translation>Pengaturan Obrolan</translation>
    </message>
    <message>
        <source>System prompt:</source>
        <translation>Prompt sistem:</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>Prompt sistem</translation>
    </message>
    <message>
        <source>Temperature:</source>
        <translation>Temperatur:</translation>
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
        <translation>Penalti pengulangan:</translation>
    </message>
    <message>
        <source>Maximum tokens:</source>
        <translation>Token maksimum:</translation>
    </message>
    <message>
        <source>Seed (-1: random):</source>
        <translation>Seed (-1: acak):</translation>
    </message>
    <message>
        <source>Penalize the last tokens:</source>
        <translation>Penalti untuk token terakhir:</translation>
    </message>
    <message>
        <source>Presence penalty:</source>
        <translation>Penalti kehadiran:</translation>
    </message>
    <message>
        <source>Frequency penalty:</source>
        <translation>Penalti frekuensi:</translation>
    </message>
    <message>
        <source>The maximum is more than the model&apos;s context of %1 tokens: an answer stops when the context is full.</source>
        <translation>Batas maksimum melebihi konteks model sebesar %1 token: jawaban berhenti saat konteks penuh.</translation>
    </message>
    <message>
        <source>When the chat outgrows the context:</source>
        <translation>Saat obrolan melampaui konteks:</translation>
    </message>
    <message>
        <source>Leave the oldest messages out</source>
        <translation>Tinggalkan pesan paling lama</translation>
    </message>
    <message>
        <source>Stop and say so</source>
        <translation>Berhenti dan beri tahu</translation>
    </message>
    <message>
        <source>When the chat outgrows the context</source>
        <translation>Saat obrolan melampaui konteks</translation>
    </message>
    <message>
        <source>Context length:</source>
        <translation>Panjang konteks:</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>Panjang konteks</translation>
    </message>
    <message>
        <source>Applies to every chat with this model. A longer context remembers more of the chat and takes more memory.</source>
        <translation>Berlaku untuk setiap obrolan dengan model ini. Konteks yang lebih panjang mengingat lebih banyak isi obrolan dan memakai lebih banyak memori.</translation>
    </message>
    <message>
        <source>Context memory:</source>
        <translation>Memori konteks:</translation>
    </message>
    <message>
        <source>16-bit, as computed</source>
        <translation>16-bit, seperti dihitung</translation>
    </message>
    <message>
        <source>8-bit, about half the memory</source>
        <translation>8-bit, sekitar separuh memori</translation>
    </message>
    <message>
        <source>Context memory</source>
        <translation>Memori konteks</translation>
    </message>
    <message>
        <source>Layers on the GPU keep a 32-bit copy of the context in this computer&apos;s memory.</source>
        <translation>Lapisan di GPU menyimpan salinan konteks 32-bit di memori komputer ini.</translation>
    </message>
    <message>
        <source>This model keeps 16-bit: its attention heads do not suit 8-bit blocks.</source>
        <translation>Model ini tetap 16-bit: kepala atensinya tidak cocok dengan blok 8-bit.</translation>
    </message>
    <message>
        <source>Guess ahead:</source>
        <translation>Tebak ke depan:</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Mati</translation>
    </message>
    <message>
        <source>From the conversation&apos;s own text</source>
        <translation>Dari teks percakapan itu sendiri</translation>
    </message>
    <message>
        <source>With %1 (%2)</source>
        <comment>a draft model and its size</comment>
        <translation>Dengan %1 (%2)</translation>
    </message>
    <message>
        <source>With %1</source>
        <comment>a draft model</comment>
        <translation>Dengan %1</translation>
    </message>
    <message>
        <source>Guess ahead</source>
        <translation>Tebak ke depan</translation>
    </message>
    <message>
        <source>The model checks several guessed words at once and keeps only what it would have written itself: the same answers, sooner when the guesses are good. A draft model must be a smaller one of the same family; it runs on the processor.</source>
        <translation>Model memeriksa beberapa kata tebakan sekaligus dan hanya menyimpan yang akan ia tulis sendiri: jawaban yang sama, lebih cepat bila tebakannya bagus. Model draf harus model yang lebih kecil dari keluarga yang sama; ia berjalan di prosesor.</translation>
    </message>
    <message>
        <source>Reasoning:</source>
        <translation>Penalaran:</translation>
    </message>
    <message>
        <source>The model&apos;s default</source>
        <translation>Bawaan model</translation>
    </message>
    <message>
        <source>Low</source>
        <translation>Rendah</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>Sedang</translation>
    </message>
    <message>
        <source>High</source>
        <translation>Tinggi</translation>
    </message>
    <message>
        <source>How much the model reasons before it answers</source>
        <translation>Seberapa banyak model bernalar sebelum menjawab</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Loading the model…</source>
        <translation>Memuat model…</translation>
    </message>
    <message>
        <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
        <translation>Tanyakan apa saja. Tekan Enter untuk mengirim, Shift+Enter untuk baris baru.</translation>
    </message>
    <message>
        <source>Open a GGUF model to start chatting, or download one from the catalog. Everything runs on this computer.</source>
        <translation>Buka model GGUF untuk mulai mengobrol, atau unduh satu dari katalog. Semuanya berjalan di komputer ini.</translation>
    </message>
    <message>
        <source>Browse Models…</source>
        <translation>Jelajahi Model…</translation>
    </message>
    <message>
        <source>Delete Message</source>
        <translation>Hapus Pesan</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Hapus</translation>
    </message>
    <message>
        <source>Delete this message? The messages before and after it stay, and it no longer takes up the model&apos;s context.</source>
        <translation>Hapus pesan ini? Pesan sebelum dan sesudahnya tetap ada, dan pesan ini tidak lagi memakai konteks model.</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>Copied</source>
        <translation>Tersalin</translation>
    </message>
    <message>
        <source>Copy</source>
        <comment>button: copy code</comment>
        <translation>Salin</translation>
    </message>
    <message>
        <source>Copy the code</source>
        <translation>Salin kode</translation>
    </message>
</context>
<context>
    <name>CommandLine</name>
    <message>
        <source>Chat with large language models on your own computer.</source>
        <translation>Mengobrol dengan model bahasa besar di komputer Anda sendiri.</translation>
    </message>
    <message>
        <source>Print the version and build options, then exit.</source>
        <translation>Tampilkan versi dan opsi build, lalu keluar.</translation>
    </message>
    <message>
        <source>Load the model in &lt;file&gt; at start.</source>
        <translation>Muat model dari &lt;file&gt; saat mulai.</translation>
    </message>
    <message>
        <source>file</source>
        <translation>berkas</translation>
    </message>
    <message>
        <source>Keep chats and settings in &lt;dir&gt;.</source>
        <translation>Simpan obrolan dan pengaturan di &lt;dir&gt;.</translation>
    </message>
    <message>
        <source>dir</source>
        <translation>folder</translation>
    </message>
    <message>
        <source>Load the model given with --model, answer one short prompt, print the speed and exit.</source>
        <translation>Muat model dari --model, jawab satu perintah singkat, tampilkan kecepatannya, lalu keluar.</translation>
    </message>
    <message>
        <source>--self-test needs a model: add --model &lt;file&gt;.</source>
        <translation>--self-test memerlukan model: tambahkan --model &lt;file&gt;.</translation>
    </message>
    <message>
        <source>Unexpected argument: %1</source>
        <translation>Argumen tidak terduga: %1</translation>
    </message>
    <message>
        <source>Serve the model over an OpenAI-compatible HTTP API without opening a window (with --model, else the last model used).</source>
        <translation>Sajikan model lewat API HTTP yang kompatibel dengan OpenAI tanpa membuka jendela (dengan --model, atau model yang terakhir dipakai).</translation>
    </message>
    <message>
        <source>With --serve: listen on &lt;address&gt; (default 127.0.0.1, this computer only).</source>
        <translation>Dengan --serve: dengarkan di &lt;address&gt; (bawaan 127.0.0.1, hanya komputer ini).</translation>
    </message>
    <message>
        <source>address</source>
        <translation>alamat</translation>
    </message>
    <message>
        <source>With --serve: listen on &lt;port&gt; (default 8080).</source>
        <translation>Dengan --serve: dengarkan di &lt;port&gt; (bawaan 8080).</translation>
    </message>
    <message>
        <source>port</source>
        <translation>port</translation>
    </message>
    <message>
        <source>With --serve: require &lt;key&gt; from every client (or set HEARTH_API_KEY).</source>
        <translation>Dengan --serve: wajibkan &lt;key&gt; dari setiap klien (atau setel HEARTH_API_KEY).</translation>
    </message>
    <message>
        <source>key</source>
        <translation>kunci</translation>
    </message>
    <message>
        <source>With --serve: at most &lt;n&gt; requests running or waiting (default 8); more are refused with 503.</source>
        <translation>Dengan --serve: paling banyak &lt;n&gt; permintaan berjalan atau menunggu (bawaan 8); selebihnya ditolak dengan 503.</translation>
    </message>
    <message>
        <source>n</source>
        <translation>n</translation>
    </message>
    <message>
        <source>--port needs a number from 0 to 65535.</source>
        <translation>--port memerlukan angka dari 0 sampai 65535.</translation>
    </message>
    <message>
        <source>--max-queue needs a number from 1 to 1024.</source>
        <translation>--max-queue memerlukan angka dari 1 sampai 1024.</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Write a message…</source>
        <translation>Tulis pesan…</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Pesan</translation>
    </message>
    <message>
        <source>Stop</source>
        <comment>button: stop generating</comment>
        <translation>Hentikan</translation>
    </message>
    <message>
        <source>Send</source>
        <comment>button: send the message</comment>
        <translation>Kirim</translation>
    </message>
    <message>
        <source>Context used</source>
        <translation>Konteks terpakai</translation>
    </message>
    <message>
        <source>Context almost full: %1 of %2 tokens. Start a new chat soon.</source>
        <translation>Konteks hampir penuh: %1 dari %2 token. Segera mulai obrolan baru.</translation>
    </message>
    <message>
        <source>Context: %1 of %2 tokens</source>
        <translation>Konteks: %1 dari %2 token</translation>
    </message>
    <message>
        <source>Stop the answer</source>
        <translation>Hentikan jawaban</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>Kirim pesan</translation>
    </message>
    <message>
        <source>Open a model first</source>
        <translation>Buka model terlebih dahulu</translation>
    </message>
</context>
<context>
    <name>ConvertPanel</name>
    <message>
        <source>Choose the model folder</source>
        <translation>Pilih folder model</translation>
    </message>
    <message>
        <source>Choose the predictor folder</source>
        <translation>Pilih folder prediktor</translation>
    </message>
    <message>
        <source>Choose the activation statistics folder</source>
        <translation>Pilih folder statistik aktivasi</translation>
    </message>
    <message>
        <source>Choose a GGUF model to quantize</source>
        <translation>Pilih model GGUF untuk dikuantisasi</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>Model GGUF (*.gguf)</translation>
    </message>
    <message>
        <source>Save the converted model as</source>
        <translation>Simpan model hasil konversi sebagai</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Hugging Face model folder, or a .gguf file</source>
        <translation>Folder model Hugging Face, atau berkas .gguf</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>Folder…</translation>
    </message>
    <message>
        <source>GGUF file…</source>
        <translation>Berkas GGUF…</translation>
    </message>
    <message>
        <source>Predictors</source>
        <translation>Prediktor</translation>
    </message>
    <message>
        <source>Optional: folder with model_&lt;n&gt;.pt files (sparse model)</source>
        <translation>Opsional: folder berisi berkas model_&lt;n&gt;.pt (model jarang)</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>Aktivasi</translation>
    </message>
    <message>
        <source>Optional: folder with activation_&lt;n&gt;.pt files</source>
        <translation>Opsional: folder berisi berkas activation_&lt;n&gt;.pt</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Jenis</translation>
    </message>
    <message>
        <source>near full quality</source>
        <translation>hampir kualitas penuh</translation>
    </message>
    <message>
        <source>full quality</source>
        <translation>kualitas penuh</translation>
    </message>
    <message>
        <source>Save as</source>
        <translation>Simpan sebagai</translation>
    </message>
    <message>
        <source>Where the .gguf file goes</source>
        <translation>Lokasi berkas .gguf</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Telusuri…</translation>
    </message>
    <message>
        <source>The file exists: replace it</source>
        <translation>Berkas sudah ada: ganti</translation>
    </message>
    <message>
        <source>Start</source>
        <comment>button: start converting</comment>
        <translation>Mulai</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop converting</comment>
        <translation>Batal</translation>
    </message>
    <message>
        <source>%1 (%2 %)  ·  output about %3</source>
        <translation>%1 (%2 %)  ·  hasil sekitar %3</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1 (%2 %)</translation>
    </message>
    <message>
        <source>close to Q8_0, a quarter smaller</source>
        <translation>mendekati Q8_0, seperempat lebih kecil</translation>
    </message>
    <message>
        <source>high quality</source>
        <translation>kualitas tinggi</translation>
    </message>
    <message>
        <source>the usual choice: good quality, small</source>
        <translation>pilihan umum: kualitas baik, ukuran kecil</translation>
    </message>
    <message>
        <source>small; sparse models need it or Q8_0</source>
        <translation>kecil; model jarang memerlukan ini atau Q8_0</translation>
    </message>
    <message>
        <source>smallest, for small GPUs</source>
        <translation>terkecil, untuk GPU kecil</translation>
    </message>
    <message>
        <source>Choose a calibration text</source>
        <translation>Pilih teks kalibrasi</translation>
    </message>
    <message>
        <source>Text files (*.txt *.md)</source>
        <translation>Berkas teks (*.txt *.md)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Semua berkas (*)</translation>
    </message>
    <message>
        <source>Convert, quantize or make a model sparse</source>
        <translation>Konversi, kuantisasi, atau jadikan model sparse</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>Kalibrasi</translation>
    </message>
    <message>
        <source>Optional: a text file to calibrate on (default: the built-in text)</source>
        <translation>Opsional: berkas teks untuk kalibrasi (bawaan: teks bawaan aplikasi)</translation>
    </message>
    <message>
        <source>File…</source>
        <translation>Berkas…</translation>
    </message>
    <message>
        <source>skips the neurons that matter least (ReLU: predictors, SwiGLU: thresholds)</source>
        <translation>melewati neuron yang paling tidak berpengaruh (ReLU: prediktor, SwiGLU: ambang batas)</translation>
    </message>
</context>
<context>
    <name>DialogProblem</name>
    <message>
        <source>Cannot open the file chooser</source>
        <translation>Pemilih berkas tidak dapat dibuka</translation>
    </message>
</context>
<context>
    <name>EngineError</name>
    <message>
        <source>A setting or request is out of range.</source>
        <translation>Sebuah pengaturan atau permintaan di luar batas.</translation>
    </message>
    <message>
        <source>The system refused to read or write a file (is the disk full, or was the file moved?).</source>
        <translation>Sistem menolak membaca atau menulis berkas (apakah disk penuh, atau berkas dipindahkan?).</translation>
    </message>
    <message>
        <source>The file is damaged or incomplete.</source>
        <translation>Berkas rusak atau tidak lengkap.</translation>
    </message>
    <message>
        <source>The file uses something Hearth cannot run yet.</source>
        <translation>Berkas memakai sesuatu yang belum dapat dijalankan Hearth.</translation>
    </message>
    <message>
        <source>There is not enough memory.</source>
        <translation>Memori tidak cukup.</translation>
    </message>
    <message>
        <source>It was cancelled.</source>
        <translation>Dibatalkan.</translation>
    </message>
    <message>
        <source>The conversation does not fit the model&apos;s context.</source>
        <translation>Percakapan tidak muat dalam konteks model.</translation>
    </message>
    <message>
        <source>The input asks for more work or memory than Hearth allows.</source>
        <translation>Masukan meminta kerja atau memori lebih dari yang diizinkan Hearth.</translation>
    </message>
    <message>
        <source>The result is not as good as asked for.</source>
        <translation>Hasilnya tidak sebaik yang diminta.</translation>
    </message>
    <message>
        <source>%1 (Engine: %2)</source>
        <comment>a sentence, then the engine&apos;s English words</comment>
        <translation>%1 (Mesin: %2)</translation>
    </message>
    <message>
        <source>Hearth met an internal error; please report it with these details.</source>
        <translation>Hearth mengalami galat internal; mohon laporkan beserta rincian ini.</translation>
    </message>
</context>
<context>
    <name>FitBadge</name>
    <message>
        <source>~%1 tokens/s</source>
        <translation>~%1 token/dtk</translation>
    </message>
    <message>
        <source>Unknown fit</source>
        <translation>Kecocokan tidak diketahui</translation>
    </message>
    <message>
        <source>Does not fit</source>
        <comment>fit badge</comment>
        <translation>Tidak muat</translation>
    </message>
    <message>
        <source>Needs about %1 of RAM; this computer has %2.</source>
        <translation>Membutuhkan sekitar %1 RAM; komputer ini memiliki %2.</translation>
    </message>
    <message>
        <source>Fully on GPU</source>
        <comment>fit badge</comment>
        <translation>Sepenuhnya di GPU</translation>
    </message>
    <message>
        <source>Everything fits in GPU memory (%1 used), %2.</source>
        <translation>Semuanya muat di memori GPU (%1 terpakai), %2.</translation>
    </message>
    <message>
        <source>CPU only, %1</source>
        <comment>fit badge</comment>
        <translation>Hanya CPU, %1</translation>
    </message>
    <message>
        <source>The GPU&apos;s free memory is too small for any part of this model.</source>
        <translation>Memori GPU yang kosong terlalu kecil untuk bagian mana pun dari model ini.</translation>
    </message>
    <message>
        <source>No GPU found: the model runs on the processor.</source>
        <translation>Tidak ada GPU: model berjalan di prosesor.</translation>
    </message>
    <message>
        <source>Hybrid, %1</source>
        <comment>fit badge</comment>
        <translation>Hibrida, %1</translation>
    </message>
    <message>
        <source>%1 of %2 attention layers and %3% of the FFN neurons on the GPU.</source>
        <translation>%1 dari %2 lapisan atensi dan %3% neuron FFN di GPU.</translation>
    </message>
    <message>
        <source>%1 of %2 attention layers and %3 of %4 experts on the GPU.</source>
        <translation>%1 dari %2 lapisan atensi dan %3 dari %4 pakar di GPU.</translation>
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
        <translation>Buka Model…</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>Buka berkas model</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>Bahasa antarmuka</translation>
    </message>
    <message>
        <source>Open a Model</source>
        <translation>Buka Model</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>Model GGUF (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Semua berkas (*)</translation>
    </message>
    <message>
        <source>CPU (%1)</source>
        <comment>status bar: compute mode, %1 is the kernel set such as avx2</comment>
        <translation>CPU (%1)</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>Terbaru</translation>
    </message>
    <message>
        <source>Recently used models</source>
        <translation>Model yang baru dipakai</translation>
    </message>
    <message>
        <source>Loading progress</source>
        <translation>Kemajuan memuat</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Batal</translation>
    </message>
    <message>
        <source>Cancel loading the model</source>
        <translation>Batalkan pemuatan model</translation>
    </message>
    <message>
        <source>Chat Settings…</source>
        <translation>Pengaturan Obrolan…</translation>
    </message>
    <message>
        <source>System prompt and sampling of this chat</source>
        <translation>Prompt sistem dan sampling obrolan ini</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>Pengaturan…</translation>
    </message>
    <message>
        <source>Application settings</source>
        <translation>Pengaturan aplikasi</translation>
    </message>
    <message>
        <source>Deleted “%1”.</source>
        <translation>“%1” dihapus.</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Urungkan</translation>
    </message>
    <message>
        <source>Undo deleting the chat</source>
        <translation>Urungkan penghapusan obrolan</translation>
    </message>
    <message>
        <source>Export Chat</source>
        <translation>Ekspor Obrolan</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>Berkas JSON (*.json)</translation>
    </message>
    <message>
        <source>Markdown files (*.md)</source>
        <translation>Berkas Markdown (*.md)</translation>
    </message>
    <message>
        <source>GPU + CPU (%1)</source>
        <comment>status bar: hybrid compute mode, %1 is the CPU kernel set</comment>
        <translation>GPU + CPU (%1)</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Simpan</translation>
    </message>
    <message>
        <source>Saved the chat to %1.</source>
        <translation>Obrolan disimpan ke %1.</translation>
    </message>
    <message>
        <source>Server…</source>
        <translation>Server…</translation>
    </message>
    <message>
        <source>Chat with a model on an OpenAI-compatible server</source>
        <translation>Mengobrol dengan model di server yang kompatibel dengan OpenAI</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>Edited message</source>
        <translation>Pesan yang disunting</translation>
    </message>
    <message>
        <source>Send Edited</source>
        <translation>Kirim Suntingan</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Batal</translation>
    </message>
    <message>
        <source>…</source>
        <comment>placeholder while the first token is computed</comment>
        <translation>…</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Gagal: %1</translation>
    </message>
    <message>
        <source>Stopped before the end.</source>
        <translation>Dihentikan sebelum selesai.</translation>
    </message>
    <message>
        <source>Previous alternative</source>
        <translation>Alternatif sebelumnya</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <comment>alternative answers: this one of how many</comment>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Next alternative</source>
        <translation>Alternatif berikutnya</translation>
    </message>
    <message>
        <source>Copy</source>
        <comment>button: copy the message</comment>
        <translation>Salin</translation>
    </message>
    <message>
        <source>Copy the message</source>
        <translation>Salin pesan</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>Buat Ulang</translation>
    </message>
    <message>
        <source>Answer again</source>
        <translation>Jawab lagi</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Sunting</translation>
    </message>
    <message>
        <source>Edit and resend the message</source>
        <translation>Sunting dan kirim ulang pesan</translation>
    </message>
    <message>
        <source>%1 tokens · %2 tokens/s · first token after %3 ms</source>
        <translation>%1 token · %2 token/dtk · token pertama setelah %3 md</translation>
    </message>
    <message>
        <source>Interrupted: Hearth closed before this answer was finished.</source>
        <translation>Terputus: Hearth tertutup sebelum jawaban ini selesai.</translation>
    </message>
    <message>
        <source>Delete</source>
        <comment>button: delete this one message</comment>
        <translation>Hapus</translation>
    </message>
    <message>
        <source>Delete this message; the rest of the chat stays</source>
        <translation>Hapus pesan ini; sisa obrolan tetap ada</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>Sedang berpikir…</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>Penalaran</translation>
    </message>
    <message>
        <source>Hide the reasoning</source>
        <translation>Sembunyikan penalaran</translation>
    </message>
    <message>
        <source>Show the reasoning</source>
        <translation>Tampilkan penalaran</translation>
    </message>
    <message>
        <source>Cut off at the length limit: Continue lets it go on; raise “Maximum tokens” in Chat Settings for longer answers.</source>
        <translation>Terpotong di batas panjang: Lanjutkan membuatnya berlanjut; naikkan “Token maksimum” di Pengaturan Obrolan untuk jawaban yang lebih panjang.</translation>
    </message>
    <message>
        <source>Continue</source>
        <comment>button: let a cut-off answer go on</comment>
        <translation>Lanjutkan</translation>
    </message>
    <message>
        <source>Let the answer go on where it ended</source>
        <translation>Lanjutkan jawaban dari tempat ia berhenti</translation>
    </message>
    <message>
        <source>Cut off: the conversation filled the model&apos;s context. Continue goes on without the oldest messages where Chat Settings lets it leave them out; a longer context or a new chat gives more room.</source>
        <translation>Terpotong: percakapan memenuhi konteks model. Lanjutkan meneruskannya tanpa pesan-pesan terlama bila Pengaturan Obrolan mengizinkan pesan itu ditinggalkan; konteks yang lebih panjang atau obrolan baru memberi lebih banyak ruang.</translation>
    </message>
</context>
<context>
    <name>ModelsCatalogSection</name>
    <message>
        <source>Filter the catalog…</source>
        <translation>Saring katalog…</translation>
    </message>
    <message>
        <source>Filter the catalog</source>
        <translation>Saring katalog</translation>
    </message>
    <message>
        <source>Fit for:</source>
        <translation>Kecocokan untuk:</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>Komputer ini</translation>
    </message>
    <message>
        <source>A GPU of %1 GB</source>
        <translation>GPU %1 GB</translation>
    </message>
    <message>
        <source>Show how the models fit this computer or a GPU of another size</source>
        <translation>Tampilkan kecocokan model dengan komputer ini atau GPU berukuran lain</translation>
    </message>
    <message>
        <source>Sparse</source>
        <translation>Sparse</translation>
    </message>
    <message>
        <source>Dense</source>
        <translation>Padat</translation>
    </message>
    <message>
        <source>Predictors available: hot neurons on the GPU, cold ones on the CPU.</source>
        <translation>Prediktor tersedia: neuron panas di GPU, neuron dingin di CPU.</translation>
    </message>
    <message>
        <source>No predictors: every neuron is computed.</source>
        <translation>Tanpa prediktor: setiap neuron dihitung.</translation>
    </message>
    <message>
        <source>GPU Memory…</source>
        <translation>Memori GPU…</translation>
    </message>
    <message>
        <source>Plan the GPU memory of %1</source>
        <translation>Rencanakan memori GPU untuk %1</translation>
    </message>
    <message>
        <source>%1 · %2 parameters · %3 · licence: %4</source>
        <translation>%1 · %2 parameter · %3 · lisensi: %4</translation>
    </message>
    <message>
        <source>Published as a checkpoint: it is converted to GGUF after downloading.</source>
        <translation>Diterbitkan sebagai checkpoint: dikonversi ke GGUF setelah diunduh.</translation>
    </message>
    <message>
        <source>All files (%1)</source>
        <translation>Semua berkas (%1)</translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>button: download a model file</comment>
        <translation>Unduh</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>Unduh %1</translation>
    </message>
    <message>
        <source>No model in the catalog matches.</source>
        <translation>Tidak ada model di katalog yang cocok.</translation>
    </message>
    <message>
        <source>Mixture of experts</source>
        <translation>Campuran pakar</translation>
    </message>
    <message>
        <source>Each token runs %1 of %2 experts a layer; only their weights are read.</source>
        <translation>Setiap token menjalankan %1 dari %2 pakar per lapisan; hanya bobot merekalah yang dibaca.</translation>
    </message>
</context>
<context>
    <name>ModelsDownloadsSection</name>
    <message>
        <source>Downloads are checked against the repository&apos;s SHA-256 before they are offered for loading.</source>
        <translation>Unduhan diperiksa dengan SHA-256 repositori sebelum ditawarkan untuk dimuat.</translation>
    </message>
    <message>
        <source>Clear Finished</source>
        <translation>Bersihkan yang Selesai</translation>
    </message>
    <message>
        <source>Remove finished, failed and cancelled downloads from the list</source>
        <translation>Hapus unduhan yang selesai, gagal, dan dibatalkan dari daftar</translation>
    </message>
    <message>
        <source>%1 from %2</source>
        <translation>%1 dari %2</translation>
    </message>
    <message>
        <source>Progress of %1</source>
        <translation>Kemajuan %1</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Jeda</translation>
    </message>
    <message>
        <source>Pause downloading %1</source>
        <translation>Jeda mengunduh %1</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Lanjutkan</translation>
    </message>
    <message>
        <source>Resume downloading %1</source>
        <translation>Lanjutkan mengunduh %1</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Coba Lagi</translation>
    </message>
    <message>
        <source>Try downloading %1 again</source>
        <translation>Coba unduh %1 lagi</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop a download and delete its partial file</comment>
        <translation>Batal</translation>
    </message>
    <message>
        <source>Cancel downloading %1</source>
        <translation>Batalkan unduhan %1</translation>
    </message>
    <message>
        <source>Remove</source>
        <comment>button: forget a download; a finished file stays on disk</comment>
        <translation>Hapus</translation>
    </message>
    <message>
        <source>Remove %1 from the list</source>
        <translation>Hapus %1 dari daftar</translation>
    </message>
    <message>
        <source>Nothing downloaded yet. Pick a model in the catalog or search Hugging Face.</source>
        <translation>Belum ada unduhan. Pilih model di katalog atau cari di Hugging Face.</translation>
    </message>
</context>
<context>
    <name>ModelsInstalledSection</name>
    <message>
        <source>Verified downloads and imported model files. Unfinished or unverified downloads are not listed.</source>
        <translation>Unduhan terverifikasi dan berkas model yang diimpor. Unduhan yang belum selesai atau belum terverifikasi tidak ditampilkan.</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>Impor…</translation>
    </message>
    <message>
        <source>Add a GGUF model file from this computer</source>
        <translation>Tambahkan berkas model GGUF dari komputer ini</translation>
    </message>
    <message>
        <source>%1 (loaded)</source>
        <translation>%1 (dimuat)</translation>
    </message>
    <message>
        <source>Sparse</source>
        <translation>Sparse</translation>
    </message>
    <message>
        <source>Dense</source>
        <translation>Padat</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>diimpor</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>diunduh</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>Muat Ulang</translation>
    </message>
    <message>
        <source>Load</source>
        <comment>button: load this model for chatting</comment>
        <translation>Muat</translation>
    </message>
    <message>
        <source>Load %1</source>
        <translation>Muat %1</translation>
    </message>
    <message>
        <source>GPU Memory…</source>
        <translation>Memori GPU…</translation>
    </message>
    <message>
        <source>Plan the GPU memory of %1</source>
        <translation>Rencanakan memori GPU untuk %1</translation>
    </message>
    <message>
        <source>Show in Folder</source>
        <translation>Tampilkan di Folder</translation>
    </message>
    <message>
        <source>Open the folder that holds %1</source>
        <translation>Buka folder yang berisi %1</translation>
    </message>
    <message>
        <source>Remove from List</source>
        <translation>Hapus dari Daftar</translation>
    </message>
    <message>
        <source>Remove %1 from the list; the file stays on disk</source>
        <translation>Hapus %1 dari daftar; berkas tetap ada di disk</translation>
    </message>
    <message>
        <source>No models yet. Download one, or import a GGUF file you already have.</source>
        <translation>Belum ada model. Unduh satu, atau impor berkas GGUF yang sudah Anda miliki.</translation>
    </message>
    <message>
        <source>Import a Model</source>
        <translation>Impor Model</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>Model GGUF (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Semua berkas (*)</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 · %4 · %5</source>
        <translation>%1 · %2 · %3 · %4 · %5</translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n lapisan</numerusform>
        </translation>
    </message>
    <message>
        <source>Make Sparse…</source>
        <translation>Jadikan Sparse…</translation>
    </message>
    <message>
        <source>Make %1 sparse, so that it skips the neurons that matter least</source>
        <translation>Jadikan %1 sparse, agar melewati neuron yang paling tidak berpengaruh</translation>
    </message>
    <message>
        <source>Delete…</source>
        <comment>button: delete a downloaded model from the disk</comment>
        <translation>Hapus…</translation>
    </message>
    <message>
        <source>Delete %1 from the disk</source>
        <translation>Hapus %1 dari disk</translation>
    </message>
    <message>
        <source>Delete Model</source>
        <translation>Hapus Model</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Hapus</translation>
    </message>
    <message>
        <source>Delete %1? Its file is removed from the disk; using it again means downloading it again.</source>
        <translation>Hapus %1? Berkasnya dihapus dari disk; untuk memakainya lagi, model harus diunduh lagi.</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <source>Models</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Back to Chat</source>
        <translation>Kembali ke Obrolan</translation>
    </message>
    <message>
        <source>Close the models page and return to the chat</source>
        <translation>Tutup halaman model dan kembali ke obrolan</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>Katalog</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>Cari</translation>
    </message>
    <message>
        <source>Downloads (%1)</source>
        <translation>Unduhan (%1)</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>Unduhan</translation>
    </message>
    <message>
        <source>Installed (%1)</source>
        <translation>Terpasang (%1)</translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation>VRAM</translation>
    </message>
    <message>
        <source>Convert</source>
        <translation>Konversi</translation>
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
        <translation>Hanya padat</translation>
    </message>
    <message>
        <source>Unsupported</source>
        <comment>search result: Hearth cannot run it</comment>
        <translation>Tidak didukung</translation>
    </message>
    <message>
        <source>Search Hugging Face, e.g. ReluLLaMA or PowerInfer</source>
        <translation>Cari di Hugging Face, mis. ReluLLaMA atau PowerInfer</translation>
    </message>
    <message>
        <source>Search models on Hugging Face</source>
        <translation>Cari model di Hugging Face</translation>
    </message>
    <message>
        <source>Search</source>
        <comment>button: search Hugging Face</comment>
        <translation>Cari</translation>
    </message>
    <message>
        <source>%1 downloads · %2 likes</source>
        <translation>%1 unduhan · %2 suka</translation>
    </message>
    <message>
        <source>Search for a model by name. Results say whether Hearth runs them with hot neurons on the GPU (sparse), without (dense only), or not at all.</source>
        <translation>Cari model berdasarkan nama. Hasil menunjukkan apakah Hearth menjalankannya dengan neuron panas di GPU (sparse), tanpanya (hanya padat), atau tidak sama sekali.</translation>
    </message>
    <message>
        <source>Files of %1</source>
        <translation>Berkas %1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>button: download a model file</comment>
        <translation>Unduh</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>Unduh %1</translation>
    </message>
    <message>
        <source>No files listed.</source>
        <translation>Tidak ada berkas.</translation>
    </message>
</context>
<context>
    <name>ModelsVramSection</name>
    <message>
        <source>A plan from the catalog&apos;s figures; download the model to run it.</source>
        <translation>Rencana dari angka katalog; unduh model untuk menjalankannya.</translation>
    </message>
    <message>
        <source>Load a model, or choose “GPU Memory…” for an installed one, to plan where its layers run.</source>
        <translation>Muat model, atau pilih “Memori GPU…” pada model terpasang, untuk merencanakan di mana lapisannya berjalan.</translation>
    </message>
    <message>
        <source>Apply places the running model again with this budget; the conversation stays.</source>
        <translation>Terapkan menempatkan ulang model yang berjalan dengan anggaran ini; percakapan tetap ada.</translation>
    </message>
    <message>
        <source>This model is not running: Apply remembers the budget for its next load.</source>
        <translation>Model ini tidak sedang berjalan: Terapkan menyimpan anggaran untuk pemuatan berikutnya.</translation>
    </message>
    <message>
        <source>Placing the model again…</source>
        <translation>Menempatkan ulang model…</translation>
    </message>
    <message>
        <source>Running now: %1</source>
        <translation>Berjalan sekarang: %1</translation>
    </message>
    <message>
        <source>Reading the model file…</source>
        <translation>Membaca berkas model…</translation>
    </message>
    <message>
        <source>The chat uses “%1” on the server at %2: it runs in that server&apos;s memory, so there is no GPU budget to plan here.</source>
        <translation>Obrolan memakai “%1” di server %2: model berjalan di memori server itu, jadi tidak ada anggaran GPU yang perlu direncanakan di sini.</translation>
    </message>
    <message>
        <source>Show the Running Model</source>
        <translation>Tampilkan Model yang Berjalan</translation>
    </message>
</context>
<context>
    <name>Placement</name>
    <message>
        <source>CPU only</source>
        <translation>Hanya CPU</translation>
    </message>
    <message>
        <source>CPU only: the GPU %1 failed</source>
        <translation>Hanya CPU: GPU %1 gagal</translation>
    </message>
    <message>
        <source>GPU %1: %2 of %3 FFN neurons hot</source>
        <translation>GPU %1: %2 dari %3 neuron FFN panas</translation>
    </message>
    <message numerus="yes">
        <source>GPU %1: %2 of %n layer(s)</source>
        <translation>
            <numerusform>GPU %1: %2 dari %n lapisan</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU memory budget: %1</source>
        <translation>Anggaran memori GPU: %1</translation>
    </message>
    <message>
        <source>Engine: %1</source>
        <translation>Mesin: %1</translation>
    </message>
    <message numerus="yes">
        <source>GPU %1: %2 of %3 experts, attention of %4 of %n layer(s)</source>
        <translation>
            <numerusform>GPU %1: %2 dari %3 pakar, atensi %4 dari %n lapisan</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RemoteServerDialog</name>
    <message>
        <source>Connect to a Server</source>
        <translation>Hubungkan ke Server</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>Hubungkan</translation>
    </message>
    <message>
        <source>The server lists no models.</source>
        <translation>Server tidak mencantumkan model apa pun.</translation>
    </message>
    <message>
        <source>Server address:</source>
        <translation>Alamat server:</translation>
    </message>
    <message>
        <source>Address of the OpenAI-compatible server</source>
        <translation>Alamat server yang kompatibel dengan OpenAI</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>Kunci API:</translation>
    </message>
    <message>
        <source>None</source>
        <translation>Tidak ada</translation>
    </message>
    <message>
        <source>API key for the server</source>
        <translation>Kunci API untuk server</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Model:</translation>
    </message>
    <message>
        <source>Model on the server</source>
        <translation>Model di server</translation>
    </message>
    <message>
        <source>Asking…</source>
        <translation>Menanyakan…</translation>
    </message>
    <message>
        <source>List Models</source>
        <translation>Daftar Model</translation>
    </message>
    <message>
        <source>Ask the server which models it has</source>
        <translation>Tanyakan model apa saja yang dimiliki server</translation>
    </message>
    <message>
        <source>The chat sends its messages to this server and stores the answers here, like any other. The local model is unloaded while you use it.</source>
        <translation>Obrolan mengirim pesannya ke server ini dan menyimpan jawabannya di sini, seperti obrolan lain. Model lokal dilepas selama Anda memakainya.</translation>
    </message>
</context>
<context>
    <name>ServeCommand</name>
    <message>
        <source>Model: %1 (%2), context of %3 tokens</source>
        <translation>Model: %1 (%2), konteks %3 token</translation>
    </message>
    <message>
        <source>Placement: %1</source>
        <translation>Penempatan: %1</translation>
    </message>
    <message>
        <source>Serving the OpenAI-compatible API at %1</source>
        <translation>Menyajikan API yang kompatibel dengan OpenAI di %1</translation>
    </message>
    <message>
        <source>No model given (--model FILE) and none used before: serving at %1 without one; requests get 503.</source>
        <translation>Tidak ada model (--model FILE) dan belum pernah ada yang dipakai: menyajikan di %1 tanpa model; permintaan mendapat 503.</translation>
    </message>
    <message>
        <source>Stopping the server.</source>
        <translation>Menghentikan server.</translation>
    </message>
    <message>
        <source>Guessing ahead from the conversation&apos;s own text</source>
        <translation>Menebak ke depan dari teks percakapan itu sendiri</translation>
    </message>
    <message>
        <source>Guessing ahead with %1</source>
        <translation>Menebak ke depan dengan %1</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Pengaturan</translation>
    </message>
    <message>
        <source>Theme:</source>
        <translation>Tema:</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>Ikuti sistem</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Terang</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Gelap</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>Tema</translation>
    </message>
    <message>
        <source>Font size:</source>
        <translation>Ukuran huruf:</translation>
    </message>
    <message>
        <source>System</source>
        <translation>Sistem</translation>
    </message>
    <message>
        <source>Font size in points</source>
        <translation>Ukuran huruf dalam poin</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>Bahasa:</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>Bahasa antarmuka</translation>
    </message>
    <message>
        <source>Threads:</source>
        <translation>Thread:</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Otomatis</translation>
    </message>
    <message>
        <source>Engine threads</source>
        <translation>Thread mesin</translation>
    </message>
    <message>
        <source>Data folder:</source>
        <translation>Folder data:</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>Folder data</translation>
    </message>
    <message>
        <source>A new data folder is used from the next start.</source>
        <translation>Folder data baru dipakai mulai dari peluncuran berikutnya.</translation>
    </message>
    <message>
        <source>Default system prompt:</source>
        <translation>Prompt sistem bawaan:</translation>
    </message>
    <message>
        <source>Default system prompt</source>
        <translation>Prompt sistem bawaan</translation>
    </message>
    <message>
        <source>Default temperature:</source>
        <translation>Temperatur bawaan:</translation>
    </message>
    <message>
        <source>Default temperature</source>
        <translation>Temperatur bawaan</translation>
    </message>
    <message>
        <source>Default answer length:</source>
        <translation>Panjang jawaban bawaan:</translation>
    </message>
    <message>
        <source>Default maximum tokens per answer</source>
        <translation>Token maksimum bawaan per jawaban</translation>
    </message>
    <message>
        <source>Hugging Face mirror:</source>
        <translation>Mirror Hugging Face:</translation>
    </message>
    <message>
        <source>Hugging Face endpoint or mirror address</source>
        <translation>Alamat endpoint atau mirror Hugging Face</translation>
    </message>
    <message>
        <source>Hugging Face token:</source>
        <translation>Token Hugging Face:</translation>
    </message>
    <message>
        <source>For gated models; empty: HF_TOKEN or none</source>
        <translation>Untuk model terbatas; kosong: HF_TOKEN atau tanpa token</translation>
    </message>
    <message>
        <source>Hugging Face access token</source>
        <translation>Token akses Hugging Face</translation>
    </message>
    <message>
        <source>%1 pt</source>
        <comment>font size in points</comment>
        <translation>%1 pt</translation>
    </message>
    <message>
        <source>API server:</source>
        <translation>Server API:</translation>
    </message>
    <message>
        <source>Serve the loaded model to other programs (OpenAI-compatible)</source>
        <translation>Sajikan model yang dimuat ke program lain (kompatibel dengan OpenAI)</translation>
    </message>
    <message>
        <source>Server address:</source>
        <translation>Alamat server:</translation>
    </message>
    <message>
        <source>Address the server listens on</source>
        <translation>Alamat tempat server mendengarkan</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>Port:</translation>
    </message>
    <message>
        <source>Port the server listens on</source>
        <translation>Port tempat server mendengarkan</translation>
    </message>
    <message>
        <source>Server API key:</source>
        <translation>Kunci API server:</translation>
    </message>
    <message>
        <source>None</source>
        <translation>Tidak ada</translation>
    </message>
    <message>
        <source>API key clients must send</source>
        <translation>Kunci API yang wajib dikirim klien</translation>
    </message>
    <message>
        <source>Programs on this computer reach the model at %1.</source>
        <translation>Program di komputer ini menjangkau model di %1.</translation>
    </message>
    <message>
        <source>Other computers can reach the model at %1 with the key.</source>
        <translation>Komputer lain dapat menjangkau model di %1 dengan kunci.</translation>
    </message>
    <message>
        <source>Other computers can reach the model at %1, and no key is set: anyone on the network may use it.</source>
        <translation>Komputer lain dapat menjangkau model di %1, dan tidak ada kunci: siapa pun di jaringan boleh memakainya.</translation>
    </message>
    <message>
        <source>Off. When on, programs use the URL shown here as their OpenAI base URL.</source>
        <translation>Mati. Saat aktif, program memakai URL yang ditampilkan di sini sebagai URL dasar OpenAI mereka.</translation>
    </message>
    <message>
        <source>Sparse models:</source>
        <translation>Model jarang:</translation>
    </message>
    <message>
        <source>Faster prompts</source>
        <translation>Prompt lebih cepat</translation>
    </message>
    <message>
        <source>Faster prompts for sparse models</source>
        <translation>Prompt lebih cepat untuk model jarang</translation>
    </message>
    <message>
        <source>Keeps their feed-forward weights twice in memory, from the next load.</source>
        <translation>Menyimpan bobot feed-forward-nya dua kali di memori, mulai pemuatan berikutnya.</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <source>New Chat</source>
        <translation>Obrolan Baru</translation>
    </message>
    <message>
        <source>Start a new conversation</source>
        <translation>Mulai percakapan baru</translation>
    </message>
    <message>
        <source>Search chats…</source>
        <translation>Cari obrolan…</translation>
    </message>
    <message>
        <source>Search all conversations</source>
        <translation>Cari di semua percakapan</translation>
    </message>
    <message>
        <source>Chat actions</source>
        <translation>Tindakan obrolan</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>Ganti Nama…</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>Ekspor sebagai Markdown…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>Ekspor sebagai JSON…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Hapus</translation>
    </message>
    <message>
        <source>No chat matches.</source>
        <translation>Tidak ada obrolan yang cocok.</translation>
    </message>
    <message>
        <source>No chats yet.</source>
        <translation>Belum ada obrolan.</translation>
    </message>
    <message>
        <source>Rename Chat</source>
        <translation>Ganti Nama Obrolan</translation>
    </message>
    <message>
        <source>Chat title</source>
        <translation>Judul obrolan</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Download, import and manage models</source>
        <translation>Unduh, impor, dan kelola model</translation>
    </message>
    <message>
        <source>Models (Ctrl+M)</source>
        <translation>Model (Ctrl+M)</translation>
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
        <translation>Belum ada model yang dimuat</translation>
    </message>
    <message>
        <source>Compute mode</source>
        <translation>Mode komputasi</translation>
    </message>
    <message>
        <source>Answering…</source>
        <translation>Menjawab…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Siap</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>Siaga</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 token/dtk</translation>
    </message>
    <message>
        <source>Speed of the last answer</source>
        <translation>Kecepatan jawaban terakhir</translation>
    </message>
    <message>
        <source>Loading… %1%</source>
        <translation>Memuat… %1%</translation>
    </message>
    <message>
        <source>Cancel</source>
        <comment>button: stop loading the model</comment>
        <translation>Batal</translation>
    </message>
    <message>
        <source>Cancel loading the model</source>
        <translation>Batalkan pemuatan model</translation>
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
        <translation>Memori GPU untuk %1</translation>
    </message>
    <message>
        <source>GPU memory budget</source>
        <translation>Anggaran memori GPU</translation>
    </message>
    <message>
        <source>No GPU found on this computer. Planning for a GPU of %1 GB.</source>
        <translation>Tidak ada GPU di komputer ini. Merencanakan untuk GPU %1 GB.</translation>
    </message>
    <message>
        <source>No GPU found on this computer: models run on the processor.</source>
        <translation>Tidak ada GPU di komputer ini: model berjalan di prosesor.</translation>
    </message>
    <message>
        <source>Plan for a GPU of:</source>
        <translation>Rencanakan untuk GPU sebesar:</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>Plan for a GPU of %1 GB</source>
        <translation>Rencanakan untuk GPU %1 GB</translation>
    </message>
    <message>
        <source>Auto</source>
        <comment>VRAM budget follows the free GPU memory</comment>
        <translation>Otomatis</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>Atensi</translation>
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
        <translation>Neuron FFN: panas di GPU / dingin di CPU</translation>
    </message>
    <message>
        <source>L%1</source>
        <comment>layer number</comment>
        <translation>L%1</translation>
    </message>
    <message>
        <source>Attention on the GPU</source>
        <translation>Atensi di GPU</translation>
    </message>
    <message>
        <source>Attention on the CPU</source>
        <translation>Atensi di CPU</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 neurons on the GPU</source>
        <translation>Lapisan %1: %2 dari %3 neuron di GPU</translation>
    </message>
    <message>
        <source>Apply</source>
        <comment>button: use this GPU memory budget</comment>
        <translation>Terapkan</translation>
    </message>
    <message>
        <source>Layer %1: %2 of %3 experts on the GPU</source>
        <translation>Lapisan %1: %2 dari %3 pakar di GPU</translation>
    </message>
</context>
<context>
    <name>hearth::BlockListModel</name>
    <message>
        <source>Code</source>
        <comment>header of a code block without a language</comment>
        <translation>Kode</translation>
    </message>
</context>
<context>
    <name>hearth::ChatExport</name>
    <message>
        <source>User</source>
        <translation>Pengguna</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Asisten</translation>
    </message>
    <message>
        <source>System</source>
        <translation>Sistem</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 token</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 token/detik</translation>
    </message>
    <message>
        <source>first token after %1 ms</source>
        <translation>token pertama setelah %1 md</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>terputus</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>gagal: %1</translation>
    </message>
    <message>
        <source>Untitled chat</source>
        <translation>Obrolan tanpa judul</translation>
    </message>
    <message>
        <source>*Model:* `%1`</source>
        <translation>*Model:* `%1`</translation>
    </message>
    <message>
        <source>*Created:* %1</source>
        <translation>*Dibuat:* %1</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>Perintah sistem</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>dihentikan</translation>
    </message>
    <message>
        <source>cut off at the length limit</source>
        <translation>terpotong di batas panjang</translation>
    </message>
    <message>
        <source>cut off: the context was full</source>
        <translation>terpotong: konteks sudah penuh</translation>
    </message>
</context>
<context>
    <name>hearth::ChatStore</name>
    <message>
        <source>The chat database is locked by another program (%1). Is Hearth running twice?</source>
        <translation>Basis data obrolan dikunci oleh program lain (%1). Apakah Hearth berjalan dua kali?</translation>
    </message>
    <message>
        <source>The chat database is read-only (%1).</source>
        <translation>Basis data obrolan hanya-baca (%1).</translation>
    </message>
    <message>
        <source>The disk holding the chat database is full (%1).</source>
        <translation>Disk tempat basis data obrolan sudah penuh (%1).</translation>
    </message>
    <message>
        <source>The chat database is damaged or is not a database (%1).</source>
        <translation>Basis data obrolan rusak atau bukan basis data (%1).</translation>
    </message>
    <message>
        <source>The chat database cannot be opened (%1). Check the folder&apos;s permissions.</source>
        <translation>Basis data obrolan tidak dapat dibuka (%1). Periksa izin foldernya.</translation>
    </message>
    <message>
        <source>The disk reported an error while reading or writing the chat database (%1).</source>
        <translation>Disk melaporkan galat saat membaca atau menulis basis data obrolan (%1).</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation>Membuka %1</translation>
    </message>
    <message>
        <source>The chat database is not open.</source>
        <translation>Basis data obrolan belum dibuka.</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only: changes cannot be saved.</source>
        <translation>Basis data obrolan %1 hanya-baca: perubahan tidak dapat disimpan.</translation>
    </message>
    <message>
        <source>Reading %1</source>
        <translation>Membaca %1</translation>
    </message>
    <message>
        <source>The chat database %1 was written by a newer version of Hearth (schema %2; this version understands up to %3). It was left untouched; please update Hearth.</source>
        <translation>Basis data obrolan %1 ditulis oleh versi Hearth yang lebih baru (skema %2; versi ini hanya memahami hingga %3). Basis data tidak diubah; silakan perbarui Hearth.</translation>
    </message>
    <message>
        <source>The chat database %1 cannot be written.</source>
        <translation>Basis data obrolan %1 tidak dapat ditulis.</translation>
    </message>
    <message>
        <source>Backing up %1 before upgrading it</source>
        <translation>Mencadangkan %1 sebelum meningkatkannya</translation>
    </message>
    <message>
        <source>Upgrading %1 to schema %2</source>
        <translation>Meningkatkan %1 ke skema %2</translation>
    </message>
    <message>
        <source>Recovering answers interrupted in %1</source>
        <translation>Memulihkan jawaban yang terputus di %1</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only and needs an upgrade (schema %2, this version uses %3): it cannot be opened until it is writable.</source>
        <translation>Basis data obrolan %1 hanya-baca dan perlu ditingkatkan (skema %2, versi ini memakai %3): basis data tidak dapat dibuka sampai bisa ditulis.</translation>
    </message>
    <message>
        <source>The chat database %1 is read-only: your chats can be read, but nothing new will be saved.</source>
        <translation>Basis data obrolan %1 hanya-baca: obrolan Anda dapat dibaca, tetapi tidak ada yang baru akan disimpan.</translation>
    </message>
    <message>
        <source>Creating a conversation</source>
        <translation>Membuat percakapan</translation>
    </message>
    <message>
        <source>Reading conversations</source>
        <translation>Membaca percakapan</translation>
    </message>
    <message>
        <source>Reading a conversation</source>
        <translation>Membaca sebuah percakapan</translation>
    </message>
    <message>
        <source>Updating a conversation</source>
        <translation>Memperbarui percakapan</translation>
    </message>
    <message>
        <source>There is no conversation %1.</source>
        <translation>Tidak ada percakapan %1.</translation>
    </message>
    <message>
        <source>Deleting a conversation</source>
        <translation>Menghapus percakapan</translation>
    </message>
    <message>
        <source>There is no conversation %1 to delete.</source>
        <translation>Tidak ada percakapan %1 untuk dihapus.</translation>
    </message>
    <message>
        <source>Restoring a conversation</source>
        <translation>Memulihkan percakapan</translation>
    </message>
    <message>
        <source>Conversation %1 is not in the bin.</source>
        <translation>Percakapan %1 tidak ada di tempat sampah.</translation>
    </message>
    <message>
        <source>Emptying the bin</source>
        <translation>Mengosongkan tempat sampah</translation>
    </message>
    <message>
        <source>Reading a message</source>
        <translation>Membaca pesan</translation>
    </message>
    <message>
        <source>There is no message %1.</source>
        <translation>Tidak ada pesan %1.</translation>
    </message>
    <message>
        <source>Message %1 belongs to another conversation.</source>
        <translation>Pesan %1 milik percakapan lain.</translation>
    </message>
    <message>
        <source>Saving a message</source>
        <translation>Menyimpan pesan</translation>
    </message>
    <message>
        <source>Switching branch</source>
        <translation>Berpindah cabang</translation>
    </message>
    <message>
        <source>Deleting a message</source>
        <translation>Menghapus pesan</translation>
    </message>
    <message>
        <source>Message %1 is not being streamed.</source>
        <translation>Pesan %1 tidak sedang dialirkan.</translation>
    </message>
    <message>
        <source>Saving the answer: %1</source>
        <translation>Menyimpan jawaban: %1</translation>
    </message>
    <message>
        <source>Searching</source>
        <translation>Mencari</translation>
    </message>
    <message>
        <source>There is no conversation %1 to export.</source>
        <translation>Tidak ada percakapan %1 untuk diekspor.</translation>
    </message>
    <message>
        <source>Continuing an answer</source>
        <translation>Melanjutkan jawaban</translation>
    </message>
</context>
<context>
    <name>hearth::DownloadManager</name>
    <message>
        <source>Copying %1 was interrupted; import it again.</source>
        <translation>Penyalinan %1 terputus; impor lagi.</translation>
    </message>
    <message>
        <source>Verified: the SHA-256 checksum matches the one published with the model.</source>
        <translation>Terverifikasi: checksum SHA-256 cocok dengan yang diterbitkan bersama model.</translation>
    </message>
    <message>
        <source>Only the size was checked: no checksum is published for this file.</source>
        <translation>Hanya ukurannya yang diperiksa: tidak ada checksum yang diterbitkan untuk berkas ini.</translation>
    </message>
    <message>
        <source>Not verified.</source>
        <translation>Belum diverifikasi.</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>Tidak dapat membuat folder %1.</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: the download needs %2 more, %3 is free.</source>
        <translation>Ruang disk di %1 tidak cukup: unduhan memerlukan %2 lagi, yang tersedia %3.</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>Tidak dapat menulis %1: %2</translation>
    </message>
    <message>
        <source>The file is damaged: the server sent more data than expected.</source>
        <translation>Berkas rusak: server mengirim data lebih banyak dari yang diharapkan.</translation>
    </message>
    <message>
        <source>Too many or unsafe redirects while downloading %1.</source>
        <translation>Terlalu banyak pengalihan atau pengalihan tidak aman saat mengunduh %1.</translation>
    </message>
    <message>
        <source>The connection was closed before the download finished.</source>
        <translation>Koneksi ditutup sebelum unduhan selesai.</translation>
    </message>
    <message numerus="yes">
        <source>The download failed after %n attempt(s): %1</source>
        <translation>
            <numerusform>Unduhan gagal setelah %n percobaan: %1</numerusform>
        </translation>
    </message>
    <message>
        <source>The file is damaged (size mismatch: %1 instead of %2); it was deleted.</source>
        <translation>Berkas rusak (ukuran tidak cocok: %1, seharusnya %2); berkas telah dihapus.</translation>
    </message>
    <message>
        <source>The file is damaged (checksum mismatch); it was deleted. Try downloading it again.</source>
        <translation>Berkas rusak (checksum tidak cocok); berkas telah dihapus. Coba unduh lagi.</translation>
    </message>
    <message>
        <source>Cannot replace %1.</source>
        <translation>Tidak dapat mengganti %1.</translation>
    </message>
    <message>
        <source>Cannot rename the finished download to %1.</source>
        <translation>Tidak dapat mengganti nama unduhan yang selesai menjadi %1.</translation>
    </message>
    <message>
        <source>%1 is already in the models folder.</source>
        <translation>%1 sudah ada di folder model.</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: copying the model needs %2, %3 is free.</source>
        <translation>Ruang disk di %1 tidak cukup: menyalin model memerlukan %2, yang tersedia %3.</translation>
    </message>
    <message>
        <source>Copying %1 failed: %2</source>
        <translation>Penyalinan %1 gagal: %2</translation>
    </message>
    <message>
        <source>Cannot rename the copied file to %1.</source>
        <translation>Tidak dapat mengganti nama berkas salinan menjadi %1.</translation>
    </message>
</context>
<context>
    <name>hearth::DownloadQueueStore</name>
    <message>
        <source>Cannot open the download list %1.</source>
        <translation>Tidak dapat membuka daftar unduhan %1.</translation>
    </message>
    <message>
        <source>The download list could not be prepared.</source>
        <translation>Daftar unduhan tidak dapat disiapkan.</translation>
    </message>
    <message>
        <source>The download list was written by a newer version of Hearth and is left untouched.</source>
        <translation>Daftar unduhan ditulis oleh versi Hearth yang lebih baru dan tidak diubah.</translation>
    </message>
    <message>
        <source>The download could not be saved.</source>
        <translation>Unduhan tidak dapat disimpan.</translation>
    </message>
    <message>
        <source>The download could not be removed.</source>
        <translation>Unduhan tidak dapat dihapus.</translation>
    </message>
    <message>
        <source>The download list could not be read.</source>
        <translation>Daftar unduhan tidak dapat dibaca.</translation>
    </message>
</context>
<context>
    <name>hearth::FileHasher</name>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>Tidak dapat membaca %1: %2</translation>
    </message>
</context>
<context>
    <name>hearth::GgufProbe</name>
    <message>
        <source>%1 does not exist or is not a file.</source>
        <translation>%1 tidak ada atau bukan berkas.</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>Tidak dapat membaca %1: %2</translation>
    </message>
    <message>
        <source>%1 is too small to be a GGUF model.</source>
        <translation>%1 terlalu kecil untuk menjadi model GGUF.</translation>
    </message>
    <message>
        <source>%1 is not a GGUF model file.</source>
        <translation>%1 bukan berkas model GGUF.</translation>
    </message>
    <message>
        <source>%1 uses GGUF version %2, which Hearth cannot read.</source>
        <translation>%1 memakai GGUF versi %2, yang tidak dapat dibaca Hearth.</translation>
    </message>
    <message>
        <source>%1 has a damaged GGUF header.</source>
        <translation>Header GGUF %1 rusak.</translation>
    </message>
</context>
<context>
    <name>hearth::HuggingFaceApi</name>
    <message>
        <source>%1 needs a Hugging Face access token. If the model is gated, accept the licence on the model&apos;s page on the Hugging Face website and set a token in Settings.</source>
        <translation>%1 memerlukan token akses Hugging Face. Jika modelnya dibatasi, terima lisensinya di halaman model di situs web Hugging Face lalu atur token di Pengaturan.</translation>
    </message>
    <message>
        <source>Access to %1 was refused. The model is probably gated: accept the licence on the model&apos;s page on the Hugging Face website and check that your token can read it.</source>
        <translation>Akses ke %1 ditolak. Modelnya kemungkinan dibatasi: terima lisensinya di halaman model di situs web Hugging Face dan pastikan token Anda dapat membacanya.</translation>
    </message>
    <message>
        <source>%1 was not found. Check the repository name, the revision and the file name.</source>
        <translation>%1 tidak ditemukan. Periksa nama repositori, revisi, dan nama berkasnya.</translation>
    </message>
    <message numerus="yes">
        <source>Hugging Face is limiting requests (HTTP 429); try again in %n second(s).</source>
        <translation>
            <numerusform>Hugging Face membatasi permintaan (HTTP 429); coba lagi dalam %n detik.</numerusform>
        </translation>
    </message>
    <message>
        <source>Hugging Face is limiting requests (HTTP 429); try again later.</source>
        <translation>Hugging Face membatasi permintaan (HTTP 429); coba lagi nanti.</translation>
    </message>
    <message>
        <source>The server had a problem (HTTP %1) while fetching %2. Try again later.</source>
        <translation>Server mengalami masalah (HTTP %1) saat mengambil %2. Coba lagi nanti.</translation>
    </message>
    <message>
        <source>The server answered HTTP %1 for %2.</source>
        <translation>Server menjawab HTTP %1 untuk %2.</translation>
    </message>
    <message>
        <source>Cannot find the server %1. Check the internet connection.</source>
        <translation>Server %1 tidak ditemukan. Periksa koneksi internet.</translation>
    </message>
    <message>
        <source>The server %1 refused the connection.</source>
        <translation>Server %1 menolak koneksi.</translation>
    </message>
    <message>
        <source>The connection was closed before the download finished.</source>
        <translation>Koneksi ditutup sebelum unduhan selesai.</translation>
    </message>
    <message>
        <source>The connection stalled (no data for a while).</source>
        <translation>Koneksi macet (tidak ada data untuk beberapa saat).</translation>
    </message>
    <message>
        <source>A secure connection to %1 could not be established.</source>
        <translation>Koneksi aman ke %1 tidak dapat dibuat.</translation>
    </message>
    <message>
        <source>Network error: %1</source>
        <translation>Galat jaringan: %1</translation>
    </message>
    <message>
        <source>The repository listing could not be read (unexpected answer from the server).</source>
        <translation>Daftar repositori tidak dapat dibaca (jawaban server tidak terduga).</translation>
    </message>
    <message>
        <source>The search results could not be read (unexpected answer from the server).</source>
        <translation>Hasil pencarian tidak dapat dibaca (jawaban server tidak terduga).</translation>
    </message>
    <message>
        <source>Too many or unsafe redirects while fetching %1.</source>
        <translation>Terlalu banyak pengalihan atau pengalihan tidak aman saat mengambil %1.</translation>
    </message>
</context>
<context>
    <name>hearth::app::ChatController</name>
    <message>
        <source>The application was closed while answering.</source>
        <translation>Aplikasi ditutup saat sedang menjawab.</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>Tidak dapat menulis %1: %2</translation>
    </message>
    <message>
        <source>Chat</source>
        <comment>file name of an exported chat without a title</comment>
        <translation>Obrolan</translation>
    </message>
    <message numerus="yes">
        <source>%n earlier message(s) no longer fit the model&apos;s context and were left out of this answer.</source>
        <translation>
            <numerusform>%n pesan sebelumnya tidak lagi muat dalam konteks model dan tidak disertakan dalam jawaban ini.</numerusform>
        </translation>
    </message>
    <message>
        <source>The model is not ready to answer.</source>
        <translation>Model belum siap menjawab.</translation>
    </message>
    <message>
        <source>This chat is still being answered: stop the answer before deleting the chat.</source>
        <translation>Obrolan ini masih dijawab: hentikan jawabannya sebelum menghapus obrolan.</translation>
    </message>
</context>
<context>
    <name>hearth::app::EngineWorker</name>
    <message>
        <source>The model file %1 does not exist.</source>
        <translation>Berkas model %1 tidak ada.</translation>
    </message>
    <message>
        <source>The model file %1 cannot be read.</source>
        <translation>Berkas model %1 tidak dapat dibaca.</translation>
    </message>
    <message>
        <source>Could not load %1: %2</source>
        <translation>Tidak dapat memuat %1: %2</translation>
    </message>
    <message>
        <source>Could not start a session with %1: %2</source>
        <translation>Tidak dapat memulai sesi dengan %1: %2</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>Belum ada model yang dimuat.</translation>
    </message>
    <message>
        <source>The chat template failed: %1</source>
        <translation>Templat obrolan gagal: %1</translation>
    </message>
    <message>
        <source>The prompt is empty.</source>
        <translation>Perintahnya kosong.</translation>
    </message>
    <message>
        <source>Loading %1 was cancelled.</source>
        <translation>Pemuatan %1 dibatalkan.</translation>
    </message>
    <message>
        <source>Could not place the model for this budget: %1</source>
        <translation>Tidak dapat menempatkan model dengan anggaran ini: %1</translation>
    </message>
    <message>
        <source>Placing the model again was cancelled; the previous placement is kept.</source>
        <translation>Penempatan ulang model dibatalkan; penempatan sebelumnya dipertahankan.</translation>
    </message>
    <message>
        <source>Could not restore the previous placement: %1</source>
        <translation>Tidak dapat memulihkan penempatan sebelumnya: %1</translation>
    </message>
    <message>
        <source>The conversation (%1 tokens) no longer fits the model&apos;s context of %2 tokens. Delete earlier messages, let Chat Settings leave the oldest out, or start a new chat.</source>
        <translation>Percakapan (%1 token) tidak lagi muat dalam konteks model sebesar %2 token. Hapus pesan sebelumnya, atur Pengaturan Obrolan agar meninggalkan pesan paling lama, atau mulai obrolan baru.</translation>
    </message>
    <message>
        <source>%1 read from the disk as needed (not enough free memory)</source>
        <translation>%1 dibaca dari disk saat diperlukan (memori bebas tidak cukup)</translation>
    </message>
    <message>
        <source>The draft model %1 cannot be loaded: %2</source>
        <translation>Model draf %1 tidak dapat dimuat: %2</translation>
    </message>
    <message>
        <source>The draft model %1 cannot guess for this model: %2</source>
        <translation>Model draf %1 tidak dapat menebak untuk model ini: %2</translation>
    </message>
    <message>
        <source>%1 more memory for faster prompts</source>
        <translation>%1 memori tambahan untuk prompt lebih cepat</translation>
    </message>
</context>
<context>
    <name>hearth::app::FileDialogSupport</name>
    <message>
        <source>The file chooser cannot open because this installation lacks the Qt module %1. Install the package %2 (for example with “sudo apt install %2”) and start Hearth again.</source>
        <comment>%1 is a list of QML module names, %2 a list of package names</comment>
        <translation>Pemilih berkas tidak dapat dibuka karena instalasi ini tidak memiliki modul Qt %1. Pasang paket %2 (misalnya dengan “sudo apt install %2”) lalu jalankan Hearth lagi.</translation>
    </message>
</context>
<context>
    <name>hearth::app::ModelSession</name>
    <message>
        <source>This model&apos;s own chat template cannot be used (%1), so Hearth formats the chat in its built-in “%2” style; answers may be less accurate.</source>
        <translation>Templat obrolan bawaan model ini tidak dapat digunakan (%1), jadi Hearth memformat obrolan dengan gaya “%2” bawaannya sendiri; jawaban mungkin kurang akurat.</translation>
    </message>
    <message>
        <source>Remote: %1</source>
        <translation>Jarak jauh: %1</translation>
    </message>
    <message>
        <source>Remote: the model runs on %1, not on this computer.</source>
        <translation>Jarak jauh: model berjalan di %1, bukan di komputer ini.</translation>
    </message>
    <message>
        <source>The server offers no models.</source>
        <translation>Server tidak menawarkan model apa pun.</translation>
    </message>
    <message>
        <source>The server does not offer a model named “%1”.</source>
        <translation>Server tidak menawarkan model bernama “%1”.</translation>
    </message>
    <message>
        <source>OpenAI-compatible server at %1</source>
        <translation>Server kompatibel OpenAI di %1</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2 of memory)</source>
        <translation>%1 (memori %2)</translation>
    </message>
    <message>
        <source>The GPU stopped working (%1). The model goes on with the CPU, more slowly; load it again to use the GPU.</source>
        <translation>GPU berhenti bekerja (%1). Model tetap berjalan dengan CPU, lebih lambat; muat ulang model untuk memakai GPU lagi.</translation>
    </message>
    <message>
        <source>Last answer: %1 of %2 guessed tokens were right (%3 %).</source>
        <translation>Jawaban terakhir: %1 dari %2 token tebakan benar (%3 %).</translation>
    </message>
</context>
<context>
    <name>hearth::models::CatalogDescription</name>
    <message>
        <source>Alibaba&apos;s Qwen 3, 4B: a reasoning model that thinks in &lt;think&gt; blocks (shown folded) before it answers; 32k-token context.</source>
        <translation>Qwen 3 dari Alibaba, 4B: model penalaran yang berpikir dalam blok &lt;think&gt; (ditampilkan terlipat) sebelum menjawab; konteks 32 ribu token.</translation>
    </message>
    <message>
        <source>Qwen 3, 8B: strong reasoning, coding and many languages; thinks before it answers; 32k-token context.</source>
        <translation>Qwen 3, 8B: penalaran, pemrograman, dan banyak bahasa yang kuat; berpikir sebelum menjawab; konteks 32 ribu token.</translation>
    </message>
    <message>
        <source>Qwen 3, 14B: the largest dense Qwen 3 that suits 16 GB of RAM; thinks before it answers; 32k-token context.</source>
        <translation>Qwen 3, 14B: Qwen 3 padat terbesar yang muat di RAM 16 GB; berpikir sebelum menjawab; konteks 32 ribu token.</translation>
    </message>
    <message>
        <source>Meta&apos;s Llama 3.1 8B Instruct: a capable general assistant with a 128k-token context.</source>
        <translation>Llama 3.1 8B Instruct dari Meta: asisten umum yang cakap dengan konteks 128 ribu token.</translation>
    </message>
    <message>
        <source>Meta&apos;s Llama 3.2 3B Instruct: small and quick, good for laptops; 128k-token context.</source>
        <translation>Llama 3.2 3B Instruct dari Meta: kecil dan cepat, cocok untuk laptop; konteks 128 ribu token.</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 4B (text): five local layers to one global keep long chats small in memory; 128k-token context.</source>
        <translation>Gemma 3 4B dari Google (teks): lima lapisan lokal untuk satu lapisan global membuat obrolan panjang hemat memori; konteks 128 ribu token.</translation>
    </message>
    <message>
        <source>Google&apos;s Gemma 3 12B (text): strong writing and many languages; 128k-token context.</source>
        <translation>Gemma 3 12B dari Google (teks): kuat dalam menulis dan banyak bahasa; konteks 128 ribu token.</translation>
    </message>
    <message>
        <source>Mistral 7B Instruct v0.3: a dependable all-rounder with a 32k-token context.</source>
        <translation>Mistral 7B Instruct v0.3: model serba bisa yang andal dengan konteks 32 ribu token.</translation>
    </message>
    <message>
        <source>Microsoft&apos;s Phi-4-mini: 3.8B, good at reasoning and maths for its size; 128k-token context.</source>
        <translation>Phi-4-mini dari Microsoft: 3,8B, pandai bernalar dan matematika untuk ukurannya; konteks 128 ribu token.</translation>
    </message>
    <message>
        <source>Llama 2 7B fine-tuned to ReLU-gated FFNs; PowerInfer file with predictors. About 70% of FFN neurons stay silent per token.</source>
        <translation>Llama 2 7B yang di-fine-tune ke FFN bergerbang ReLU; berkas PowerInfer dengan prediktor. Sekitar 70% neuron FFN diam per token.</translation>
    </message>
    <message>
        <source>Llama 2 13B with ReLU-gated FFNs and predictors, ready for hybrid GPU/CPU inference.</source>
        <translation>Llama 2 13B dengan FFN bergerbang ReLU dan prediktor, siap untuk inferensi hibrida GPU/CPU.</translation>
    </message>
    <message>
        <source>Llama 2 70B with ReLU-gated FFNs and predictors. Needs about 40 GB of RAM plus GPU memory.</source>
        <translation>Llama 2 70B dengan FFN bergerbang ReLU dan prediktor. Membutuhkan sekitar 40 GB RAM ditambah memori GPU.</translation>
    </message>
    <message>
        <source>Llama 2 7B trained for high activation sparsity (about 89% of FFN neurons inactive) with quality close to the original.</source>
        <translation>Llama 2 7B yang dilatih untuk sparsitas aktivasi tinggi (sekitar 89% neuron FFN tidak aktif) dengan kualitas mendekati aslinya.</translation>
    </message>
    <message>
        <source>Llama 2 13B trained for high activation sparsity (about 89%); PowerInfer file with predictors.</source>
        <translation>Llama 2 13B yang dilatih untuk sparsitas aktivasi tinggi (sekitar 89%); berkas PowerInfer dengan prediktor.</translation>
    </message>
    <message>
        <source>Mistral-sized model with ReLU on both gate and up: keeping only the top 10% of neurons barely changes perplexity (6.48 to 6.52).</source>
        <translation>Model seukuran Mistral dengan ReLU pada gate dan up: menyisakan hanya 10% neuron teratas nyaris tidak mengubah perplexity (6,48 menjadi 6,52).</translation>
    </message>
    <message>
        <source>Bamboo-7B tuned for chat with DPO; the fastest sparse chat model in the catalog.</source>
        <translation>Bamboo-7B yang disetel untuk obrolan dengan DPO; model obrolan sparse tercepat di katalog.</translation>
    </message>
    <message>
        <source>Falcon 40B with ReLU FFNs and predictors; PowerInfer&apos;s headline model (up to 11.7x llama.cpp in FP16 on one RTX 4090).</source>
        <translation>Falcon 40B dengan FFN ReLU dan prediktor; model unggulan PowerInfer (hingga 11,7x llama.cpp dalam FP16 pada satu RTX 4090).</translation>
    </message>
    <message>
        <source>Original Hugging Face weights; Hearth converts them to GGUF and adds the predictors from PowerInfer/ReluLLaMA-7B-Predictor.</source>
        <translation>Bobot Hugging Face asli; Hearth mengubahnya ke GGUF dan menambahkan prediktor dari PowerInfer/ReluLLaMA-7B-Predictor.</translation>
    </message>
    <message>
        <source>Original weights, converted on this machine with the predictors from PowerInfer/ReluLLaMA-13B-Predictor.</source>
        <translation>Bobot asli, dikonversi di mesin ini dengan prediktor dari PowerInfer/ReluLLaMA-13B-Predictor.</translation>
    </message>
    <message>
        <source>Original FP32 weights (very large); converted on this machine with the predictors from PowerInfer/ReluFalcon-40B-Predictor.</source>
        <translation>Bobot FP32 asli (sangat besar); dikonversi di mesin ini dengan prediktor dari PowerInfer/ReluFalcon-40B-Predictor.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 1.3B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>OPT 1.3B dari Meta: secara bawaan memakai ReLU sehingga aktivasinya sparse, tetapi tidak ada prediktor untuknya; berjalan padat setelah dikonversi ke GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 2.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>OPT 2.7B dari Meta: secara bawaan memakai ReLU sehingga aktivasinya sparse, tetapi tidak ada prediktor untuknya; berjalan padat setelah dikonversi ke GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 6.7B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>OPT 6.7B dari Meta: secara bawaan memakai ReLU sehingga aktivasinya sparse, tetapi tidak ada prediktor untuknya; berjalan padat setelah dikonversi ke GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 13B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>OPT 13B dari Meta: secara bawaan memakai ReLU sehingga aktivasinya sparse, tetapi tidak ada prediktor untuknya; berjalan padat setelah dikonversi ke GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 30B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>OPT 30B dari Meta: secara bawaan memakai ReLU sehingga aktivasinya sparse, tetapi tidak ada prediktor untuknya; berjalan padat setelah dikonversi ke GGUF.</translation>
    </message>
    <message>
        <source>Meta&apos;s OPT 66B: natively ReLU, so activations are sparse, but no predictors ship for it; runs dense after conversion to GGUF.</source>
        <translation>OPT 66B dari Meta: secara bawaan memakai ReLU sehingga aktivasinya sparse, tetapi tidak ada prediktor untuknya; berjalan padat setelah dikonversi ke GGUF.</translation>
    </message>
    <message>
        <source>Qwen 3, 30B mixture of experts: each token runs 3B of its parameters, so it answers about as fast as a 3B model with the knowledge of a much larger one; thinks before it answers.</source>
        <translation>Qwen 3, 30B campuran pakar: setiap token hanya menjalankan 3B parameternya, sehingga menjawab kira-kira secepat model 3B dengan pengetahuan model yang jauh lebih besar; berpikir sebelum menjawab.</translation>
    </message>
    <message>
        <source>OpenAI&apos;s gpt-oss-20b: a mixture of experts that runs 3.6B of its 21B parameters per token, in OpenAI&apos;s own 4-bit MXFP4 weights; reasons before it answers (shown folded).</source>
        <translation>gpt-oss-20b dari OpenAI: campuran pakar (mixture of experts) yang menjalankan 3,6B dari 21B parameternya per token, dalam bobot MXFP4 4-bit milik OpenAI sendiri; bernalar sebelum menjawab (ditampilkan terlipat).</translation>
    </message>
</context>
<context>
    <name>hearth::models::ConversionJob</name>
    <message>
        <source>%1 appeared while converting.</source>
        <translation>%1 muncul selama konversi.</translation>
    </message>
    <message>
        <source>Choose a model folder to convert.</source>
        <translation>Pilih folder model yang akan dikonversi.</translation>
    </message>
    <message>
        <source>%1 is neither a model folder nor a GGUF file.</source>
        <translation>%1 bukan folder model maupun berkas GGUF.</translation>
    </message>
    <message>
        <source>%1 has no config.json. Choose the folder of a Hugging Face model.</source>
        <translation>%1 tidak memiliki config.json. Pilih folder model Hugging Face.</translation>
    </message>
    <message>
        <source>The folder %1 does not exist.</source>
        <translation>Folder %1 tidak ada.</translation>
    </message>
    <message>
        <source>Predictors and activation statistics can only be added when converting a model folder.</source>
        <translation>Prediktor dan statistik aktivasi hanya dapat ditambahkan saat mengonversi folder model.</translation>
    </message>
    <message>
        <source>Choose where to save the converted model.</source>
        <translation>Pilih tempat menyimpan model hasil konversi.</translation>
    </message>
    <message>
        <source>The converted model must not replace the model it is made from.</source>
        <translation>Model hasil konversi tidak boleh menggantikan model sumbernya.</translation>
    </message>
    <message>
        <source>%1 already exists. Choose another name, or allow replacing it.</source>
        <translation>%1 sudah ada. Pilih nama lain, atau izinkan untuk menggantinya.</translation>
    </message>
    <message>
        <source>Reading the model</source>
        <translation>Membaca model</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Selesai</translation>
    </message>
    <message>
        <source>Cancelled. No file was written.</source>
        <translation>Dibatalkan. Tidak ada berkas yang ditulis.</translation>
    </message>
    <message>
        <source>This model cannot be converted: %1</source>
        <translation>Model ini tidak dapat dikonversi: %1</translation>
    </message>
    <message>
        <source>A file of the model is damaged, incomplete or unsafe: %1</source>
        <translation>Sebuah berkas model rusak, tidak lengkap, atau tidak aman: %1</translation>
    </message>
    <message>
        <source>The model could not be read: %1</source>
        <translation>Model tidak dapat dibaca: %1</translation>
    </message>
    <message>
        <source>Checking free disk space</source>
        <translation>Memeriksa ruang disk kosong</translation>
    </message>
    <message>
        <source>Not enough disk space in %1: the new model needs %2, but only %3 are free.</source>
        <translation>Ruang disk di %1 tidak cukup: model baru memerlukan %2, tetapi hanya %3 yang tersedia.</translation>
    </message>
    <message>
        <source>Quantizing to %1</source>
        <translation>Mengkuantisasi ke %1</translation>
    </message>
    <message>
        <source>Converting to %1</source>
        <translation>Mengonversi ke %1</translation>
    </message>
    <message>
        <source>Writing the model failed: %1</source>
        <translation>Gagal menulis model: %1</translation>
    </message>
    <message>
        <source>The conversion failed: %1</source>
        <translation>Konversi gagal: %1</translation>
    </message>
    <message>
        <source>Checking that the new model loads and answers</source>
        <translation>Memeriksa bahwa model baru dapat dimuat dan menjawab</translation>
    </message>
    <message>
        <source>The new model failed its check, so it was not kept: %1</source>
        <translation>Model baru gagal dalam pemeriksaan, jadi tidak disimpan: %1</translation>
    </message>
    <message>
        <source>The new model could not be saved as %1: %2</source>
        <translation>Model baru tidak dapat disimpan sebagai %1: %2</translation>
    </message>
    <message>
        <source>Saved %1 (%2).</source>
        <translation>Disimpan: %1 (%2).</translation>
    </message>
    <message>
        <source>The calibration text %1 does not exist.</source>
        <translation>Teks kalibrasi %1 tidak ada.</translation>
    </message>
    <message>
        <source>This model cannot be made sparse: %1</source>
        <translation>Model ini tidak dapat dijadikan sparse: %1</translation>
    </message>
    <message>
        <source>The calibration text %1 cannot be read: %2</source>
        <translation>Teks kalibrasi %1 tidak dapat dibaca: %2</translation>
    </message>
    <message>
        <source>The sparse model answers worse than the dense one allows, so it was not kept: %1</source>
        <translation>Model sparse menjawab lebih buruk daripada yang diizinkan model padat, jadi tidak disimpan: %1</translation>
    </message>
    <message>
        <source>Making the model sparse failed: %1</source>
        <translation>Gagal menjadikan model sparse: %1</translation>
    </message>
    <message>
        <source>Making the model sparse and checking it</source>
        <translation>Menjadikan model sparse dan memeriksanya</translation>
    </message>
    <message>
        <source>perplexity %1 instead of %2; expected decode speed-up %3×.</source>
        <translation>perplexity %1, bukan %2; perkiraan percepatan decode %3×.</translation>
    </message>
    <message>
        <source>On text it was not calibrated on, a token skips %1% of the neurons&apos; outputs and reads %2% of the up projection; %3</source>
        <translation>Pada teks yang tidak dipakai untuk kalibrasi, setiap token melewati %1% keluaran neuron dan membaca %2% proyeksi up; %3</translation>
    </message>
    <message>
        <source>On text it was not fitted to, the predictors find %1% of the neurons that fire and select %2% of all; %3</source>
        <translation>Pada teks yang tidak dipakai untuk pelatihan, prediktor menemukan %1% neuron yang aktif dan memilih %2% dari semuanya; %3</translation>
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
        <translation>kurang dari satu menit lagi</translation>
    </message>
    <message numerus="yes">
        <source>about %n min left</source>
        <translation>
            <numerusform>sekitar %n menit lagi</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n h left</source>
        <translation>
            <numerusform>sekitar %n jam lagi</numerusform>
        </translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>Menunggu</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>Mengunduh</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Dijeda</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>Memeriksa</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>Terpasang</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Gagal</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Dibatalkan</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 dari %2</translation>
    </message>
</context>
<context>
    <name>hearth::models::GpuInfo</name>
    <message>
        <source>Simulated GPU (%1 GB)</source>
        <translation>GPU simulasi (%1 GB)</translation>
    </message>
</context>
<context>
    <name>hearth::models::HubSearch</name>
    <message>
        <source>Predictor weights only: download the model they belong to.</source>
        <translation>Hanya bobot prediktor: unduh model pemiliknya.</translation>
    </message>
    <message>
        <source>PowerInfer GGUF with predictors: hot neurons on the GPU, the rest on the CPU.</source>
        <translation>GGUF PowerInfer dengan prediktor: neuron panas di GPU, sisanya di CPU.</translation>
    </message>
    <message>
        <source>Converted to GGUF on this computer, with the predictors from %1.</source>
        <translation>Dikonversi ke GGUF di komputer ini, dengan prediktor dari %1.</translation>
    </message>
    <message>
        <source>The architecture could not be determined from the repository.</source>
        <translation>Arsitektur tidak dapat ditentukan dari repositori.</translation>
    </message>
    <message>
        <source>The %1 architecture is not supported.</source>
        <translation>Arsitektur %1 tidak didukung.</translation>
    </message>
    <message>
        <source>GGUF without predictors: runs dense (whole layers on the GPU as they fit).</source>
        <translation>GGUF tanpa prediktor: berjalan padat (lapisan utuh di GPU selama muat).</translation>
    </message>
    <message>
        <source>No predictors: converted to GGUF on this computer and run dense.</source>
        <translation>Tanpa prediktor: dikonversi ke GGUF di komputer ini dan berjalan padat.</translation>
    </message>
    <message>
        <source>No GGUF, safetensors or PyTorch weights found.</source>
        <translation>Tidak ditemukan bobot GGUF, safetensors, atau PyTorch.</translation>
    </message>
    <message>
        <source>Hearth runs %1 models from GGUF files but cannot convert this checkpoint: look for a GGUF version.</source>
        <translation>Hearth menjalankan model %1 dari berkas GGUF tetapi tidak dapat mengonversi checkpoint ini: carilah versi GGUF-nya.</translation>
    </message>
</context>
<context>
    <name>hearth::models::ModelCatalog</name>
    <message>
        <source>%1B</source>
        <comment>billions of parameters</comment>
        <translation>%1 M</translation>
    </message>
</context>
<context>
    <name>hearth::models::ModelLibrary</name>
    <message>
        <source>Cannot read the model&apos;s layout: %1</source>
        <translation>Tidak dapat membaca susunan model: %1</translation>
    </message>
    <message>
        <source>%1 is an unfinished download and cannot be imported.</source>
        <translation>%1 adalah unduhan yang belum selesai dan tidak dapat diimpor.</translation>
    </message>
    <message>
        <source>%1 cannot be used: %2</source>
        <translation>%1 tidak dapat digunakan: %2</translation>
    </message>
    <message>
        <source>Choose a model file to import.</source>
        <translation>Pilih berkas model untuk diimpor.</translation>
    </message>
    <message>
        <source>%1 is already in the list.</source>
        <translation>%1 sudah ada di daftar.</translation>
    </message>
    <message>
        <source>Cannot delete %1: %2</source>
        <translation>Tidak dapat menghapus %1: %2</translation>
    </message>
</context>
<context>
    <name>hearth::models::ModelManager</name>
    <message>
        <source>Unknown catalog model &quot;%1&quot;.</source>
        <translation>Model katalog &quot;%1&quot; tidak dikenal.</translation>
    </message>
    <message>
        <source>%1 has no file named %2.</source>
        <translation>%1 tidak memiliki berkas bernama %2.</translation>
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
        <translation>Tidak dapat merencanakan model ini: %1</translation>
    </message>
    <message>
        <source>Unknown catalog model &quot;%1&quot;.</source>
        <translation>Model katalog &quot;%1&quot; tidak dikenal.</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Planned GPU of %1 GB</source>
        <translation>GPU terencana %1 GB</translation>
    </message>
    <message>
        <source>Auto (%1)</source>
        <translation>Otomatis (%1)</translation>
    </message>
    <message>
        <source>Not enough RAM: this placement needs %1 besides the GPU&apos;s share.</source>
        <translation>RAM tidak cukup: penempatan ini membutuhkan %1 selain bagian GPU.</translation>
    </message>
    <message>
        <source>Everything is on the GPU.</source>
        <translation>Semuanya ada di GPU.</translation>
    </message>
    <message>
        <source>No GPU memory budget: everything runs on the CPU.</source>
        <translation>Tidak ada anggaran memori GPU: semuanya berjalan di CPU.</translation>
    </message>
    <message>
        <source>The budget is below the GPU&apos;s fixed costs: everything runs on the CPU.</source>
        <translation>Anggaran di bawah biaya tetap GPU: semuanya berjalan di CPU.</translation>
    </message>
    <message>
        <source>%1 of %2 layers&apos; attention and %3 of %4 FFN neurons on the GPU; the rest on the CPU.</source>
        <translation>Atensi %1 dari %2 lapisan dan %3 dari %4 neuron FFN di GPU; sisanya di CPU.</translation>
    </message>
    <message>
        <source>Weights %1 · KV cache %2 · Scratch %3 · Reserve %4 · Total %5 of %6</source>
        <translation>Bobot %1 · Cache KV %2 · Scratch %3 · Cadangan %4 · Total %5 dari %6</translation>
    </message>
    <message>
        <source>Expected speed: %1</source>
        <translation>Perkiraan kecepatan: %1</translation>
    </message>
    <message>
        <source>Hot neurons on the GPU: %1 of %2</source>
        <translation>Neuron panas di GPU: %1 dari %2</translation>
    </message>
    <message>
        <source>Layers on the GPU: %1 of %2 (dense model)</source>
        <translation>Lapisan di GPU: %1 dari %2 (model padat)</translation>
    </message>
    <message>
        <source>%1 of %2 layers&apos; attention and %3 of %4 experts on the GPU, the most used first; the rest on the CPU.</source>
        <translation>Atensi %1 dari %2 lapisan dan %3 dari %4 pakar di GPU, yang paling sering dipakai lebih dulu; sisanya di CPU.</translation>
    </message>
    <message>
        <source>Experts on the GPU: %1 of %2</source>
        <translation>Pakar di GPU: %1 dari %2</translation>
    </message>
</context>
<context>
    <name>hearth::openai::ApiServer</name>
    <message>
        <source>Cannot listen on %1:%2. Another program may use that port, or the address is not this computer&apos;s.</source>
        <translation>Tidak dapat mendengarkan di %1:%2. Program lain mungkin memakai port itu, atau alamat itu bukan milik komputer ini.</translation>
    </message>
</context>
<context>
    <name>hearth::openai::RemoteEngine</name>
    <message>
        <source>The server refused the API key (%1).</source>
        <translation>Server menolak kunci API (%1).</translation>
    </message>
    <message>
        <source>The server answered %1: %2</source>
        <translation>Server menjawab %1: %2</translation>
    </message>
    <message>
        <source>The server answered %1.</source>
        <translation>Server menjawab %1.</translation>
    </message>
    <message>
        <source>Cannot reach the server: %1</source>
        <translation>Tidak dapat menjangkau server: %1</translation>
    </message>
    <message>
        <source>That is not a server address. Type one like http://127.0.0.1:8080/v1.</source>
        <translation>Itu bukan alamat server. Ketik seperti http://127.0.0.1:8080/v1.</translation>
    </message>
    <message>
        <source>The server&apos;s answer is not a list of models; is this an OpenAI-compatible server?</source>
        <translation>Jawaban server bukan daftar model; apakah ini server yang kompatibel dengan OpenAI?</translation>
    </message>
    <message>
        <source>Another answer is still streaming from the server.</source>
        <translation>Jawaban lain masih mengalir dari server.</translation>
    </message>
    <message>
        <source>The server failed while answering: %1</source>
        <translation>Server gagal saat menjawab: %1</translation>
    </message>
    <message>
        <source>The server closed the connection before the answer was complete.</source>
        <translation>Server menutup sambungan sebelum jawaban selesai.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Cannot create the data folder %1.</source>
        <translation>Tidak dapat membuat folder data %1.</translation>
    </message>
</context>
</TS>
