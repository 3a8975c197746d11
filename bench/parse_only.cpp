// Parse-only passes over JSON files, for the scale benchmark (bench/scale.py): the time a parser takes to
// walk a file doing nothing, the floor under any reader built on it. Not part of the tests.
//   neuron_gate_parse_only rapidjson|simdjson|nlohmann FILE...   (--list: the parsers built in)
// rapidjson: SAX Reader, streaming over 1 MiB fread chunks, numbers as text (what the trace reader does).
// simdjson:  the DOM parser over the whole file loaded into memory (simdjson needs the whole document, or
//            windows cut at value boundaries, in memory). Built only when libsimdjson-dev is installed.
// nlohmann:  a SAX pass with handlers that do nothing (the reader's old parser), over the same chunks.
// Prints bytes, seconds and MB/s per file to stdout; exit 1 on a parse error.
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <nlohmann/json.hpp>

#ifdef NEURON_GATE_HAVE_SIMDJSON
#include <simdjson.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr std::size_t k_chunk = std::size_t{1} << 20;

// A RapidJSON input stream over fread chunks (the shape of the reader's stream over ByteSource).
class FileStream {
public:
  using Ch = char;
  explicit FileStream(std::FILE* file) : m_file(file), m_buffer(k_chunk) { fill(); }
  Ch Peek() { return m_cur != m_end ? *m_cur : slow_peek(); }
  Ch Take() {
    const Ch c = Peek();
    if (m_cur != m_end) {
      ++m_cur;
    }
    return c;
  }
  std::size_t Tell() const { return m_offset + static_cast<std::size_t>(m_cur - m_buffer.data()); }
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

private:
  Ch slow_peek() {
    fill();
    return m_cur != m_end ? *m_cur : '\0';
  }
  void fill() {
    if (m_end != nullptr) {
      m_offset += static_cast<std::size_t>(m_end - m_buffer.data());
    }
    const std::size_t n = std::fread(m_buffer.data(), 1, m_buffer.size(), m_file);
    m_cur = m_buffer.data();
    m_end = m_cur + n;
  }
  std::FILE* m_file;
  std::vector<char> m_buffer;
  const char* m_cur = nullptr;
  const char* m_end = nullptr;
  std::size_t m_offset = 0;
};

struct NullHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NullHandler> {
  bool Default() { return true; }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return true; }
};

bool rapidjson_pass(std::FILE* file) {
  FileStream stream(file);
  NullHandler handler;
  rapidjson::Reader reader;
  const rapidjson::ParseResult ok =
      reader.Parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag>(stream, handler);
  if (!ok) {
    std::cerr << "rapidjson: " << rapidjson::GetParseError_En(ok.Code()) << " at " << ok.Offset() << "\n";
  }
  return !ok.IsError();
}

// An input iterator over fread chunks for nlohmann's SAX parser.
struct ChunkIt {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  struct State {
    std::FILE* file;
    std::vector<char> buffer = std::vector<char>(k_chunk);
    const char* cur = nullptr;
    const char* end = nullptr;
    bool at_end() {
      if (cur == end) {
        const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), file);
        cur = buffer.data();
        end = cur + n;
      }
      return cur == end;
    }
  };
  State* state = nullptr;
  reference operator*() const { return *state->cur; }
  ChunkIt& operator++() {
    ++state->cur;
    return *this;
  }
  ChunkIt operator++(int) {
    ChunkIt old = *this;
    ++state->cur;
    return old;
  }
  bool done() const { return state == nullptr || state->at_end(); }
  friend bool operator==(const ChunkIt& a, const ChunkIt& b) { return a.done() == b.done(); }
};

struct NlohmannNull : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    std::cerr << "nlohmann: " << e.what() << "\n";
    return false;
  }
};

bool nlohmann_pass(std::FILE* file) {
  ChunkIt::State state{file};
  NlohmannNull sax;
  return nlohmann::json::sax_parse(ChunkIt{&state}, ChunkIt{}, &sax);
}

#ifdef NEURON_GATE_HAVE_SIMDJSON
bool simdjson_pass(const char* path) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS) {
    return false;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const auto error = parser.parse(text).get(root);
  if (error != simdjson::SUCCESS) {
    std::cerr << "simdjson: " << simdjson::error_message(error) << "\n";
  }
  return error == simdjson::SUCCESS;
}
#endif

} // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
#ifdef NEURON_GATE_HAVE_SIMDJSON
    std::cout << "rapidjson simdjson nlohmann\n";
#else
    std::cout << "rapidjson nlohmann\n";
#endif
    return 0;
  }
  if (argc < 3) {
    std::cerr << "usage: neuron_gate_parse_only rapidjson|simdjson|nlohmann FILE...\n";
    return 2;
  }
  const std::string mode = argv[1];
  int status = 0;
  for (int i = 2; i < argc; ++i) {
    const auto start = std::chrono::steady_clock::now();
    bool ok = false;
    std::FILE* file = std::fopen(argv[i], "rb");
    if (file == nullptr) {
      std::cerr << argv[i] << ": cannot open\n";
      return 2;
    }
    std::fseek(file, 0, SEEK_END);
    const long bytes = std::ftell(file);
    std::fseek(file, 0, SEEK_SET);
    if (mode == "rapidjson") {
      ok = rapidjson_pass(file);
    } else if (mode == "nlohmann") {
      ok = nlohmann_pass(file);
#ifdef NEURON_GATE_HAVE_SIMDJSON
    } else if (mode == "simdjson") {
      ok = simdjson_pass(argv[i]);
#endif
    } else {
      std::cerr << "unknown or unavailable parser: " << mode << "\n";
      return 2;
    }
    std::fclose(file);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << argv[i] << " " << bytes << " bytes " << seconds << " s " << (bytes / 1e6) / seconds
              << " MB/s\n";
    if (!ok) {
      status = 1;
    }
  }
  return status;
}
