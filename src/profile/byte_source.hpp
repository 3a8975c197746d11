#pragma once
// A file's bytes as a chunked stream: plain, or gzip (told by the magic bytes 1f 8b, never by the
// name) inflated with zlib on the fly, so a multi-GB trace never sits in memory whole.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace neuron_gate {

// Reads one file front to back in chunks of up to 1 MiB. Not copyable; one reader per file.
class ByteSource {
public:
  // Opens `path`. Throws InputError(path, ...) when it cannot be opened.
  explicit ByteSource(const std::string& path);
  // Reads `bytes` held in memory (a git blob, a test) as if it were the file `name`; gzip too.
  ByteSource(std::string name, std::string bytes);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // The next chunk of (decompressed) bytes, valid until the next call; empty at the end.
  // Throws InputError(path, problem, compressed byte offset) on a read error, corrupt gzip data,
  // or a gzip stream that ends before its trailer (a truncated file).
  std::string_view next();

  // A guess of the total (decompressed) size in bytes, for reserving memory: the file size, or for
  // gzip the larger of the trailer's ISIZE (size mod 2^32 of the last member) and 4x the file size.
  std::uint64_t size_hint() const;

  // True when the content is gzip (first two bytes 1f 8b).
  bool is_gzip() const;
  // The path (or name) given at construction, for error messages.
  const std::string& path() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace neuron_gate
