#include "input/byte_source.hpp"

#include "util/error.hpp"
#include "util/input_limits.hpp"
#include "util/parallel.hpp"
#include "util/sha256.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace neuron_gate {

namespace {

constexpr std::size_t k_chunk_bytes = std::size_t{1} << 20;

// What a file that is not a regular file is, for the error.
std::string special_file_kind(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "is a directory";
  }
  if (S_ISFIFO(mode)) {
    return "not a regular file: a FIFO (named pipe); inputs must be regular files";
  }
  if (S_ISCHR(mode)) {
    return "not a regular file: a character device; inputs must be regular files";
  }
  if (S_ISBLK(mode)) {
    return "not a regular file: a block device; inputs must be regular files";
  }
  if (S_ISSOCK(mode)) {
    return "not a regular file: a socket; inputs must be regular files";
  }
  return "not a regular file; inputs must be regular files";
}

// Opens a regular file for reading without ever blocking on a FIFO: opened non-blocking, checked with
// fstat, then switched back to blocking reads.
// Out of file descriptors (EMFILE, ENFILE) while other threads read, it waits for them to close theirs
// (up to 1 s), so that which file fails does not depend on timing.
std::FILE* open_regular_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  for (int wait = 0; fd < 0 && (errno == EMFILE || errno == ENFILE) && worker_threads() > 1 && wait < 200; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  }
  if (fd < 0) {
    throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const std::string problem = special_file_kind(info.st_mode);
    ::close(fd);
    throw InputError(path, problem);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) {
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  }
  return file;
}

}  // namespace

// Not in the anonymous namespace: ByteSource::Impl holds one (-Wsubobject-linkage).
// Hashes raw chunks on a thread of its own while the reader parses them, one chunk in flight: add()
// waits until the chunk before is hashed (so its buffer may be read into again), then hands this one
// over; finish() waits until all are hashed. An update's exception is thrown again by add/finish.
class ChunkHasher {
 public:
  explicit ChunkHasher(Sha256& hash) : m_hash(hash), m_thread([this] { run(); }) {}
  ~ChunkHasher() {
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
  }
  ChunkHasher(const ChunkHasher&) = delete;
  ChunkHasher& operator=(const ChunkHasher&) = delete;

  void add(const char* data, std::size_t size) {
    std::unique_lock<std::mutex> lock(m_mutex);
    wait_idle(lock);
    m_data = data;
    m_size = size;
    m_changed.notify_all();
  }
  void finish() {
    std::unique_lock<std::mutex> lock(m_mutex);
    wait_idle(lock);
  }

 private:
  void wait_idle(std::unique_lock<std::mutex>& lock) {
    m_changed.wait(lock, [this] { return m_data == nullptr; });
    if (m_error) {
      std::rethrow_exception(std::exchange(m_error, nullptr));
    }
  }
  void run() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
      m_changed.wait(lock, [this] { return m_stop || m_data != nullptr; });
      if (m_data == nullptr) {
        return;
      }
      lock.unlock();
      try {
        m_hash.update(m_data, m_size);
      } catch (...) {
        lock.lock();
        m_error = std::current_exception();
        lock.unlock();
      }
      lock.lock();
      m_data = nullptr;
      m_changed.notify_all();
    }
  }

  Sha256& m_hash;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  const char* m_data = nullptr;  // the chunk being hashed; null when idle
  std::size_t m_size = 0;
  bool m_stop = false;
  std::exception_ptr m_error;
  std::thread m_thread;  // last: started once the members above exist
};

namespace {

// Hashed sources of more than one chunk alive (each a thread reading), and hashing threads running. A
// source starts hashing beside itself, at a chunk boundary, only while the two leave a worker thread free,
// and stops at the next chunk once they take more than the worker threads (readers started meanwhile):
// `inspect` of one trace hashes on the second core from the start; in `compare` of a small side and a large
// one, the large side starts once the small side is done; --threads 1 never starts one.
std::atomic<std::size_t> g_hashed_readers{0};
std::atomic<std::size_t> g_chunk_hashers{0};

bool claim_chunk_hasher() {
  std::size_t running = g_chunk_hashers.load();
  while (g_hashed_readers.load() + running < worker_threads()) {
    if (g_chunk_hashers.compare_exchange_weak(running, running + 1)) {
      return true;
    }
  }
  return false;
}

}  // namespace

// A chunk buffer left uninitialised: a file of a few KiB touches a few pages of it, where a zero-filled
// std::vector<char> of 1 MiB wrote all of them for every file opened (under ASan, 4 s of page faults a
// comparison of the bundled examples).
class ChunkBuffer {
 public:
  void resize(std::size_t size) {
    if (size != m_size) {
      m_bytes = std::make_unique_for_overwrite<char[]>(size);
      m_size = size;
    }
  }
  char* data() { return m_bytes.get(); }
  std::size_t size() const { return m_size; }
  char operator[](std::size_t i) const { return m_bytes[i]; }

 private:
  std::unique_ptr<char[]> m_bytes;
  std::size_t m_size = 0;
};

struct ByteSource::Impl {
  std::string path;
  std::FILE* file = nullptr;  // null when reading from memory
  std::string memory;         // the bytes when reading from memory
  std::size_t memory_offset = 0;

  ChunkBuffer raw;              // last raw chunk read
  ChunkBuffer raw_spare;        // the chunk before, while `hasher` hashes it
  std::size_t raw_size = 0;     // valid bytes in raw
  std::size_t raw_used = 0;     // bytes of raw already handed out (plain files)
  std::uint64_t raw_total = 0;  // raw bytes read so far
  bool raw_eof = false;

  std::uint64_t size_hint = 0;
  std::uint64_t handed_out = 0;  // decompressed bytes returned by next()
  Sha256 raw_hash;               // of every raw byte read (when hash_raw)
  bool hash_raw = true;          // RawHash::kept

  bool gzip = false;
  bool gzip_ready = false;  // inflateInit2 done
  bool gzip_done = false;   // last member ended and no input follows
  z_stream zs{};
  ChunkBuffer inflated;
  bool hashed_reader = false;           // counted in g_hashed_readers
  std::unique_ptr<ChunkHasher> hasher;  // hashing beside the reader (claim_chunk_hasher); last member

  ~Impl() {
    if (hasher) {
      hasher.reset();  // hashes what it holds (the buffers are still here), never throws
      --g_chunk_hashers;
    }
    if (hashed_reader) {
      --g_hashed_readers;
    }
    if (gzip_ready) {
      inflateEnd(&zs);
    }
    if (file != nullptr) {
      std::fclose(file);
    }
  }

  // Reads the next raw chunk into `raw`; false at the end of the input.
  bool refill() {
    raw_used = 0;
    raw_size = 0;
    if (raw_eof) {
      return false;
    }
    if (!hasher && hashed_reader && claim_chunk_hasher()) {
      start_hashing_beside();
    } else if (hasher && g_hashed_readers.load() + g_chunk_hashers.load() > worker_threads()) {
      stop_hashing_beside();  // more readers started since: the cores are theirs
    }
    if (hasher) {
      std::swap(raw, raw_spare);  // the spare's chunk was hashed before this one was handed over
    }
    if (file == nullptr) {
      raw_size = std::min(raw.size(), memory.size() - memory_offset);
      std::memcpy(raw.data(), memory.data() + memory_offset, raw_size);
      memory_offset += raw_size;
    } else {
      raw_size = std::fread(raw.data(), 1, raw.size(), file);
      if (raw_size < raw.size() && std::ferror(file) != 0) {
        throw InputError(path, std::string("cannot read: ") + std::strerror(errno), raw_total);
      }
    }
    raw_total += raw_size;
    if (hasher) {
      hasher->add(raw.data(), raw_size);
    } else if (hash_raw) {
      raw_hash.update(raw.data(), raw_size);
    }
    if (raw_size == 0) {
      raw_eof = true;
      stop_hashing_beside();
      return false;
    }
    return true;
  }

  // The raw bytes of the input as it is now (fstat for a file; 0 when unknown).
  std::uint64_t raw_size_now() const {
    if (file == nullptr) {
      return memory.size();
    }
    struct stat info {};
    return ::fstat(::fileno(file), &info) == 0 && info.st_size > 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
  }

  std::uint64_t compressed_offset() const { return raw_total - zs.avail_in; }

  // The size of the whole input, for size_hint(): never read from the data (a gzip ISIZE trailer may
  // lie and would drive a huge reservation). Counts the source as a reader that may hash beside itself.
  void estimate_size() {
    const std::uint64_t total = raw_size_now();
    size_hint = gzip ? std::min(total * 4, input_limits().max_file_bytes) : total;
    count_reader(total);
  }

  // Counts `chunk` against the decompressed-bytes limit and returns it.
  std::string_view hand_out(std::string_view chunk) {
    const std::uint64_t limit = input_limits().max_file_bytes;
    if (handed_out + chunk.size() > limit) {
      throw InputError(path,
                       "larger than the input limit of " + byte_count_text(limit) +
                           (gzip ? " after decompression" : "") +
                           " (raise it with NEURON_GATE_MAX_FILE_BYTES if the file is genuine)",
                       limit);
    }
    handed_out += chunk.size();
    return chunk;
  }

  // Counts a hashed source of more than one chunk (`size`: its raw bytes) as a reader that may hash
  // beside itself (claim_chunk_hasher, tried at each chunk after the first). Once.
  void count_reader(std::uint64_t size) {
    if (hash_raw && size > k_chunk_bytes && !hashed_reader) {
      hashed_reader = true;
      ++g_hashed_readers;
    }
  }

  // Starts the hashing thread for a claimed slot. When the system refuses a thread (std::system_error)
  // or the spare buffer, the slot is given back and this source hashes on its own thread.
  void start_hashing_beside() {
    try {
      raw_spare.resize(k_chunk_bytes);
      hasher = std::make_unique<ChunkHasher>(raw_hash);
    } catch (const std::system_error&) {
      --g_chunk_hashers;
    } catch (...) {
      --g_chunk_hashers;
      throw;
    }
  }

  // Waits for the hashing thread to hash what it holds and ends it.
  void stop_hashing_beside() {
    if (hasher) {
      hasher->finish();
      hasher.reset();
      --g_chunk_hashers;
    }
  }

  void start() {
    // A small file gets a buffer of its size (+1 to see its end in one read); one that grows meanwhile
    // is read in more chunks.
    const std::uint64_t known = raw_size_now();
    raw.resize(known == 0 ? k_chunk_bytes
                          : static_cast<std::size_t>(std::min<std::uint64_t>(k_chunk_bytes, known + 1)));
    refill();
    gzip = raw_size >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f && static_cast<unsigned char>(raw[1]) == 0x8b;
    estimate_size();
    if (gzip) {
      inflated.resize(k_chunk_bytes);
      if (inflateInit2(&zs, 15 + 16) != Z_OK) {
        throw InputError(path, "cannot start gzip decompression");
      }
      gzip_ready = true;
      zs.next_in = reinterpret_cast<Bytef*>(raw.data());
      zs.avail_in = static_cast<uInt>(raw_size);
    }
  }

  void rewind() {
    if (file != nullptr) {
      std::rewind(file);
    }
    memory_offset = 0;
    raw_size = 0;
    raw_used = 0;
    raw_total = 0;
    raw_eof = false;
    handed_out = 0;
    stop_hashing_beside();
    raw_hash = Sha256();
    if (gzip_ready) {
      inflateEnd(&zs);
      gzip_ready = false;
    }
    gzip_done = false;
    zs = z_stream{};
    start();
  }

  std::string_view next_plain() {
    if (raw_used == raw_size && !refill()) {
      return {};
    }
    raw_used = raw_size;
    return {raw.data(), raw_size};
  }

  std::string_view next_gzip() {
    while (!gzip_done) {
      if (zs.avail_in == 0 && refill()) {
        zs.next_in = reinterpret_cast<Bytef*>(raw.data());
        zs.avail_in = static_cast<uInt>(raw_size);
      }
      zs.next_out = reinterpret_cast<Bytef*>(inflated.data());
      zs.avail_out = static_cast<uInt>(inflated.size());
      const int status = inflate(&zs, Z_NO_FLUSH);
      const std::size_t produced = inflated.size() - zs.avail_out;
      if (status == Z_STREAM_END) {
        // A gzip file may hold several members back to back (gzip -c a b > c): go on if more follows.
        if (zs.avail_in == 0 && refill()) {
          zs.next_in = reinterpret_cast<Bytef*>(raw.data());
          zs.avail_in = static_cast<uInt>(raw_size);
        }
        if (zs.avail_in == 0) {
          gzip_done = true;
        } else if (static_cast<unsigned char>(*zs.next_in) == 0x1f) {
          inflateReset(&zs);
        } else {
          throw InputError(path, "unexpected data after the end of the gzip stream", compressed_offset());
        }
      } else if (status == Z_DATA_ERROR || status == Z_NEED_DICT || status == Z_MEM_ERROR || status == Z_STREAM_ERROR) {
        throw InputError(path, std::string("corrupt gzip data: ") + (zs.msg != nullptr ? zs.msg : "unknown error"),
                         compressed_offset());
      } else if (produced == 0 && zs.avail_in == 0 && raw_eof) {
        throw InputError(path, "gzip data ends early (truncated file)", compressed_offset());
      }
      if (produced > 0) {
        return {inflated.data(), produced};
      }
    }
    return {};
  }
};

ByteSource::ByteSource(const std::string& path, RawHash hash) : m_impl(std::make_unique<Impl>()) {
  m_impl->path = path;
  m_impl->hash_raw = hash == RawHash::kept;
  m_impl->file = open_regular_file(path);
  m_impl->start();
}

ByteSource::ByteSource(std::string name, std::string bytes, RawHash hash) : m_impl(std::make_unique<Impl>()) {
  m_impl->path = std::move(name);
  m_impl->hash_raw = hash == RawHash::kept;
  m_impl->memory = std::move(bytes);
  m_impl->start();
}

ByteSource::~ByteSource() = default;

std::string_view ByteSource::next() {
  return m_impl->hand_out(m_impl->gzip ? m_impl->next_gzip() : m_impl->next_plain());
}

void ByteSource::restart() {
  m_impl->rewind();
}

std::uint64_t ByteSource::bytes_read() const {
  return m_impl->handed_out;
}

std::string ByteSource::raw_sha256() {
  if (!m_impl->hash_raw) {
    return "";
  }
  while (m_impl->refill()) {
  }
  m_impl->stop_hashing_beside();
  return m_impl->raw_hash.hex();
}

std::uint64_t ByteSource::size_hint() const {
  return m_impl->size_hint;
}

bool ByteSource::hashing_beside() const {
  return m_impl->hasher != nullptr;
}

bool ByteSource::is_gzip() const {
  return m_impl->gzip;
}

const std::string& ByteSource::path() const {
  return m_impl->path;
}

}  // namespace neuron_gate
