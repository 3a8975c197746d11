#pragma once
// A file's bytes as a chunked stream: plain, or gzip (told by the magic bytes 1f 8b, never by the
// name) inflated with zlib on the fly, so a multi-GB trace never sits in memory whole. Every input file
// of neuron-gate is read through here: it must be a regular file (a FIFO or device is refused before
// any read, so nothing hangs), its decompressed size is bounded (input_limits()), and its raw bytes
// are hashed (SHA-256) as they are read.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace neuron_gate {

// Whether a ByteSource hashes the raw bytes it reads (raw_sha256). `skipped` is for a look at the first
// bytes only (profile discovery's sniff), where the hash would be thrown away: SHA-256 of the 1 MiB a
// sniff reads was a third of discovering a folder of 1.5 MB traces.
enum class RawHash { kept, skipped };

// Reads one file front to back in chunks of up to 1 MiB. Not copyable; one reader per file.
class ByteSource {
 public:
  // Opens `path`. Throws InputError(path, ...) when it cannot be opened or is not a regular file
  // ("not a regular file: a FIFO", "... a character device", "is a directory").
  explicit ByteSource(const std::string& path, RawHash hash = RawHash::kept);
  // Reads `bytes` held in memory (a git blob, a test) as if it were the file `name`; gzip too.
  ByteSource(std::string name, std::string bytes, RawHash hash = RawHash::kept);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // The next chunk of (decompressed) bytes, valid until the next call; empty at the end.
  // Throws InputError(path, problem, compressed byte offset) on a read error, corrupt gzip data,
  // or a gzip stream that ends before its trailer (a truncated file); InputError(path, problem,
  // decompressed offset) once more than input_limits().max_file_bytes would be handed out.
  std::string_view next();

  // A guess of the total (decompressed) size in bytes, for reserving memory: the file size, or for
  // gzip 4x the file size, never above the decompressed-bytes limit. Never read from the data itself
  // (a gzip ISIZE trailer is written by whoever made the file and may lie).
  std::uint64_t size_hint() const;

  // Decompressed bytes handed out by next() so far.
  std::uint64_t bytes_read() const;

  // SHA-256 (lowercase hex) of the raw (compressed) bytes of the whole file: the bytes not read yet
  // are read and hashed, without decompressing. Call after the last next(); once. Only for a source
  // opened with RawHash::kept (with RawHash::skipped it returns "").
  std::string raw_sha256();

  // Starts over at the first byte, as if just opened: counts, gzip state and the hash too. For a second
  // pass over a file whose first pass stopped (the trace reader's fallback parser).
  void restart();

  // True while the raw bytes are hashed on a thread of their own beside the reader: a file of more than
  // one chunk, from a chunk at which the reading sources and hashing threads left a worker thread free,
  // until the last raw chunk, and the system gave it a thread (else it hashes on its own). The hash is the
  // same either way.
  bool hashing_beside() const;

  // True when the content is gzip (first two bytes 1f 8b).
  bool is_gzip() const;
  // The path (or name) given at construction, for error messages.
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace neuron_gate
