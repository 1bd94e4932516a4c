// cuzk::error, the one exception type of the native core: every layer throws it through fail() /
// require(), with the cuzk_status the caller gets and a one-line message; api/guard.hpp turns it into
// a status at the C ABI. At the bottom of the layering (it needs only the ABI's status enum).
#pragma once
#include <exception>
#include <string>

#include "../include/cuzk.h"

namespace cuzk {

struct error : std::exception {
  cuzk_status code;
  std::string message;
  error(cuzk_status c, std::string m) : code(c), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

[[noreturn]] inline void fail(cuzk_status code, const std::string& message) { throw error(code, message); }
inline void require(bool ok, const char* what) {
  if (!ok) fail(CUZK_E_INVALID_ARG, what);
}
inline void require(bool ok, const std::string& what) {
  if (!ok) fail(CUZK_E_INVALID_ARG, what);
}

}  // namespace cuzk
