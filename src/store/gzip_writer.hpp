#pragma once
// gzip compression fed in pieces (digests, digest.hpp): the JSON text is compressed as it is written and
// never held whole. Equal text gives equal bytes however it is split: the header carries no name and no
// time, and deflate without flushes does not depend on how its input arrives.

#include <string>
#include <string_view>
#include <zlib.h>

namespace neuron_gate {

class GzipWriter {
 public:
  // Best compression (level 9, 32 KiB window, memLevel 9). Throws std::bad_alloc when zlib cannot start.
  GzipWriter();
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;

  // Compresses `text` (any size) after what came before.
  void write(std::string_view text);
  // Ends the stream and returns every compressed byte (header, deflate data, CRC and size). Call once.
  std::string finish();

 private:
  void deflate_into_output(int flush);

  z_stream stream_{};
  std::string out_;
};

}  // namespace neuron_gate
