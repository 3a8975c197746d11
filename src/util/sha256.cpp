#include "util/sha256.hpp"

#include <openssl/evp.h>

#include <array>
#include <new>

namespace neuron_gate {

struct Sha256::Impl {
  EVP_MD_CTX* context = nullptr;
  ~Impl() { EVP_MD_CTX_free(context); }
};

Sha256::Sha256() : m_impl(std::make_unique<Impl>()) {
  m_impl->context = EVP_MD_CTX_new();
  if (m_impl->context == nullptr || EVP_DigestInit_ex(m_impl->context, EVP_sha256(), nullptr) != 1) {
    throw std::bad_alloc();  // OpenSSL fails to start a digest only when it cannot allocate
  }
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, std::size_t size) {
  if (size > 0) {
    EVP_DigestUpdate(m_impl->context, data, size);
  }
}

std::string Sha256::hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned length = 0;
  EVP_DigestFinal_ex(m_impl->context, digest.data(), &length);
  static const char* digits = "0123456789abcdef";
  std::string text;
  for (unsigned i = 0; i < length; ++i) {
    text += digits[digest[i] >> 4];
    text += digits[digest[i] & 0xF];
  }
  return text;
}

std::string sha256_hex(std::string_view text) {
  Sha256 hash;
  hash.update(text.data(), text.size());
  return hash.hex();
}

}  // namespace neuron_gate
