#include "store/gzip_writer.hpp"

#include <algorithm>
#include <new>

namespace neuron_gate {
namespace {

constexpr std::size_t k_out_piece = 64 * 1024;
constexpr std::size_t k_in_piece = std::size_t{1} << 30;  // avail_in is 32-bit

}  // namespace

GzipWriter::GzipWriter() {
  constexpr int k_gzip_window = 15 + 16;  // 32 KiB window, gzip wrapper
  if (deflateInit2(&stream_, Z_BEST_COMPRESSION, Z_DEFLATED, k_gzip_window, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::bad_alloc();
  }
}

GzipWriter::~GzipWriter() {
  deflateEnd(&stream_);
}

// Runs deflate over the pending input with `flush` until it has taken all of it (Z_NO_FLUSH) or ended
// the stream (Z_FINISH), appending the output to out_.
void GzipWriter::deflate_into_output(int flush) {
  for (;;) {
    const std::size_t had = out_.size();
    out_.resize(had + k_out_piece);
    stream_.next_out = reinterpret_cast<Bytef*>(out_.data() + had);
    stream_.avail_out = static_cast<uInt>(k_out_piece);
    const int result = deflate(&stream_, flush);
    out_.resize(had + (k_out_piece - stream_.avail_out));
    if (result == Z_STREAM_END) {
      return;
    }
    if (result != Z_OK && result != Z_BUF_ERROR) {
      throw std::bad_alloc();  // the stream is set up and fed correctly: only memory can fail
    }
    if (flush == Z_NO_FLUSH && stream_.avail_in == 0 && stream_.avail_out != 0) {
      return;
    }
  }
}

void GzipWriter::write(std::string_view text) {
  while (!text.empty()) {
    const std::size_t piece = std::min(text.size(), k_in_piece);
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    stream_.avail_in = static_cast<uInt>(piece);
    deflate_into_output(Z_NO_FLUSH);
    text.remove_prefix(piece);
  }
}

std::string GzipWriter::finish() {
  stream_.next_in = nullptr;
  stream_.avail_in = 0;
  deflate_into_output(Z_FINISH);
  return std::move(out_);
}

}  // namespace neuron_gate
