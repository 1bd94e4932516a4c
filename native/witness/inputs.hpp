// Circuit inputs for the witness driver: JSON → field elements with circom's naming (nested
// objects as "a.b", arrays of objects as "a[0].b", arrays of values flattened), but every fault
// is a one-line message naming the signal instead of circom's assert(false): an unknown or
// missing signal, a wrong count, a value that is not an integer or not below the field modulus.
#pragma once
#include <gmp.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <calcwit.hpp>
#include <circom.hpp>

using input_names_t = std::map<u64, std::string>;

namespace inputs_detail {

using json = nlohmann::json;

inline void qualify(const std::string& prefix, const json& in, std::map<std::string, const json*>& out);

inline bool array_of_objects(const json& in) {
  return in.is_array() && !in.empty() && (in[0].is_object() || array_of_objects(in[0]));
}

inline void qualify(const std::string& prefix, const json& in, std::map<std::string, const json*>& out) {
  if (in.is_object()) {
    for (auto it = in.begin(); it != in.end(); ++it) qualify(prefix.empty() ? it.key() : prefix + "." + it.key(), it.value(), out);
  } else if (array_of_objects(in)) {
    for (size_t i = 0; i < in.size(); i++) qualify(prefix + "[" + std::to_string(i) + "]", in[i], out);
  } else {
    out[prefix] = &in;
  }
}

inline void flatten(const json& v, std::vector<const json*>& out) {
  if (v.is_array()) for (const auto& x : v) flatten(x, out);
  else out.push_back(&v);
}

// Position of |h| in circom's open-addressing input map, or -1 (circom asserts instead).
inline long find_input(Circom_Circuit* c, u64 h) {
  uint n = get_size_of_input_hashmap();
  for (uint k = 0, pos = uint(h % n); k < n; k++, pos = (pos + 1) % n) {
    if (c->InputHashMap[pos].hash == h) return long(pos);
    if (c->InputHashMap[pos].signalid == 0) return -1;  // an empty slot (signal 0 is the constant one)
  }
  return -1;
}

// One value as snarkjs reads it (BigInt(v)): decimal with an optional '-', 0x/0o/0b, or a
// JSON integer; the result as a decimal string circom's Fr_str2element takes.
inline std::string field_value(const json& v, const mpz_t q, std::string& err) {
  std::string s;
  int base = 10;
  if (v.is_number_integer() || v.is_number_unsigned()) s = v.dump();
  else if (v.is_number_float()) {
    double d = v.get<double>();
    if (d != double((long long)d) || d > 9007199254740991.0 || d < -9007199254740991.0) { err = v.dump() + " is not an integer"; return ""; }
    s = std::to_string((long long)d);
  } else if (v.is_string()) {
    s = v.get<std::string>();
    if (s.size() > 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
      base = strchr("xX", s[1]) ? 16 : strchr("oO", s[1]) ? 8 : 2;
      s = s.substr(2);
    }
  } else {
    err = v.dump() + " is not a number";
    return "";
  }
  bool neg = base == 10 && !s.empty() && s[0] == '-';
  std::string digits = neg ? s.substr(1) : s;
  mpz_t x;
  if (digits.empty() || digits.find_first_of(" \t+-") != std::string::npos || mpz_init_set_str(x, digits.c_str(), base) != 0) {
    if (!digits.empty()) mpz_clear(x);
    err = v.dump() + " is not an integer";
    return "";
  }
  bool too_big = mpz_cmp(x, q) >= 0;
  if (too_big) err = v.dump() + " is not below the field modulus";
  if (neg) mpz_neg(x, x);
  char* d = mpz_get_str(nullptr, 10, x);
  std::string out(d);
  free(d);
  mpz_clear(x);
  return too_big ? "" : out;
}

}  // namespace inputs_detail

// Input signal names by circom's FNV-1a hash, from the manifest's "names" (the main component's
// signals in the circuit's .sym, when `cuzk witness build` found one); others are named by position.
inline input_names_t input_names(Circom_Circuit* c, const nlohmann::json& manifest) {
  input_names_t out;
  if (manifest.contains("names") && manifest["names"].is_array())
    for (const auto& n : manifest["names"]) {
      if (!n.is_string()) continue;
      u64 h = fnv1a(n.get<std::string>());
      if (inputs_detail::find_input(c, h) >= 0) out[h] = n.get<std::string>();
    }
  return out;
}

// Sets every input of |ctx| (the circuit runs as the last is set); "" or the first fault.
inline std::string set_inputs(Circom_CalcWit* ctx, Circom_Circuit* c, const input_names_t& names, const char* text, size_t len) {
  using namespace inputs_detail;
  json in = json::parse(text, text + len, nullptr, false);
  if (in.is_discarded()) return "the input is not valid JSON";
  if (!in.is_object()) return "the input must be a JSON object of signal names";
  std::map<std::string, const json*> flat;
  qualify("", in, flat);
  mpz_t q;
  mpz_init(q);
  mpz_import(q, Fr_N64, -1, 8, -1, 0, Fr_q.longVal);
  std::map<long, bool> given;
  std::string err;
  std::vector<std::pair<long, std::vector<FrElement>>> values;
  for (const auto& [name, v] : flat) {
    long pos = find_input(c, fnv1a(name));
    if (pos < 0) { err = "input signal \"" + name + "\": the circuit has no such input"; break; }
    std::vector<const json*> xs;
    flatten(*v, xs);
    u64 size = c->InputHashMap[pos].signalsize;
    if (xs.size() != size) {
      err = "input signal \"" + name + "\" takes " + std::to_string(size) + " value" + (size == 1 ? "" : "s") + ", got " + std::to_string(xs.size());
      break;
    }
    std::vector<FrElement> fs(size);
    for (size_t i = 0; i < size && err.empty(); i++) {
      std::string why, d = field_value(*xs[i], q, why);
      if (!why.empty()) err = "input signal \"" + name + (size > 1 ? "[" + std::to_string(i) + "]" : "") + "\": " + why;
      else Fr_str2element(&fs[i], d.c_str(), 10);
    }
    if (!err.empty()) break;
    given[pos] = true;
    values.emplace_back(pos, std::move(fs));
  }
  mpz_clear(q);
  if (!err.empty()) return err;
  uint n = get_size_of_input_hashmap();
  for (uint pos = 0; pos < n; pos++) {
    const HashSignalInfo& s = c->InputHashMap[pos];
    if (s.signalid == 0 || given.count(long(pos))) continue;
    auto it = names.find(s.hash);
    return "input signal " + (it != names.end() ? "\"" + it->second + "\"" : "(signal id " + std::to_string(s.signalid) + ")") + " is missing";
  }
  if (get_main_input_signal_no() == 0) ctx->tryRunCircuit();
  for (auto& [pos, fs] : values)
    for (size_t i = 0; i < fs.size(); i++) ctx->setInputSignal(c->InputHashMap[pos].hash, uint(i), fs[i]);
  return "";
}
