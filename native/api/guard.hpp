// guard(): the body of every exported function. Runs |fn|, turns any exception into a status and
// a message in the caller-owned cuzk_error, so no exception crosses extern "C". The error type itself
// is util/error.hpp's (every layer below throws it).
#pragma once
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "util/error.hpp"

namespace cuzk {

inline void set_error(cuzk_error* err, cuzk_status code, const char* message) {
  if (!err) return;
  err->code = code;
  std::snprintf(err->message, sizeof err->message, "%s", message);
}

template <class Fn>
cuzk_status guard(Fn&& fn, cuzk_error* err) noexcept {
  try {
    fn();
    if (err) { err->code = CUZK_OK; err->message[0] = 0; }
    return CUZK_OK;
  } catch (const error& e) {
    set_error(err, e.code, e.message.c_str());
    return e.code;
  } catch (const std::bad_alloc&) {
    set_error(err, CUZK_E_HOST_OOM, "host memory allocation failed");
    return CUZK_E_HOST_OOM;
  } catch (const std::exception& e) {
    set_error(err, CUZK_E_INTERNAL, e.what());
    return CUZK_E_INTERNAL;
  } catch (...) {
    set_error(err, CUZK_E_INTERNAL, "unknown native exception");
    return CUZK_E_INTERNAL;
  }
}

}  // namespace cuzk
