#pragma once
// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface, fed incrementally so that a file is hashed
// from the same bytes a reader reads, in one pass.

#include <memory>
#include <string>
#include <string_view>

namespace neuron_gate {

// An incremental SHA-256. update() any number of times, then hex() once. The constructor throws
// std::bad_alloc when OpenSSL cannot allocate a digest context.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  // Adds `size` bytes at `data`.
  void update(const void* data, std::size_t size);
  // The digest of everything added, 64 lowercase hex digits. Call once; the hash is finished after.
  std::string hex();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// SHA-256 of `text`, 64 lowercase hex digits.
std::string sha256_hex(std::string_view text);

}  // namespace neuron_gate
