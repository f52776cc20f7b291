<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="id">
<context>
    <name>ChatView</name>
    <message>
        <source>…</source>
        <comment>placeholder while the first token is computed</comment>
        <translation>…</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 token/detik</translation>
    </message>
    <message>
        <source>Open a GGUF model to start chatting. Everything runs on this computer.</source>
        <translation>Buka model GGUF untuk mulai mengobrol. Semuanya berjalan di komputer ini.</translation>
    </message>
    <message>
        <source>Loading the model…</source>
        <translation>Memuat model…</translation>
    </message>
    <message>
        <source>Ask anything. Press Enter to send, Shift+Enter for a new line.</source>
        <translation>Tanyakan apa saja. Tekan Enter untuk mengirim, Shift+Enter untuk baris baru.</translation>
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
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Open a model first</source>
        <translation>Buka model terlebih dahulu</translation>
    </message>
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
        <source>New Chat</source>
        <translation>Obrolan Baru</translation>
    </message>
    <message>
        <source>Start a new conversation</source>
        <translation>Mulai percakapan baru</translation>
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
        <source>Loading…</source>
        <translation>Memuat…</translation>
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
</context>
<context>
    <name>main</name>
    <message>
        <source>Cannot create the data folder %1.</source>
        <translation>Tidak dapat membuat folder data %1.</translation>
    </message>
</context>
</TS>
