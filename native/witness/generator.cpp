// cuzk's driver for circom's C++ witness generators (`circom --c`): replaces circom's main.cpp.
// One long-lived process maps the circuit's .dat (carried in a trailer after its own ELF image,
// written by `cuzk witness build`) once, then serves framed requests on stdin: for each it forks a
// child that computes one witness and writes the .wtns (snarkjs's format, as circom's main.cpp
// writes it) straight to the path named in the request. A child that aborts (circom's generated
// code asserts), leaks or overruns fails only its request; the server answers and serves the next.
// Protocol (little-endian): request = u32 frame_len, u32 id, u32 timeout_ms, u32 out_len, out path,
// input JSON; answer = u32 len + JSON {"id","ok"} | {"id","code","message"}. The first answer
// (id 0) describes the circuit: {"nVars","prime","inputs"}.
#include <fcntl.h>
#include <gmp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
// circom's generated runtime (-I the CIRCUIT_cpp folder)
#include <calcwit.hpp>
#include <circom.hpp>

#include "inputs.hpp"

using json = nlohmann::json;

namespace {

const char MAGIC[8] = {'C', 'U', 'Z', 'K', 'G', 'E', 'N', '1'};

struct embedded_t {
  const uint8_t* dat = nullptr;
  size_t dat_bytes = 0;
  json manifest;
};

[[noreturn]] void die(const std::string& msg) {
  fprintf(stderr, "cuzk witness generator: %s\n", msg.c_str());
  _exit(2);
}

// Trailer: [dat][manifest json][u64 dat_bytes][u64 manifest_bytes][u64 file_bytes][MAGIC].
embedded_t load_embedded() {
  int fd = open("/proc/self/exe", O_RDONLY);
  if (fd < 0) die(std::string("cannot open /proc/self/exe: ") + strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0) die("cannot stat /proc/self/exe");
  size_t n = size_t(sb.st_size);
  auto* p = static_cast<const uint8_t*>(mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0));
  close(fd);
  if (p == MAP_FAILED) die("cannot map /proc/self/exe");
  uint64_t t[3];
  if (n < 32 || memcmp(p + n - 8, MAGIC, 8) != 0) die("no circuit trailer (truncated, or not built by `cuzk witness build`)");
  memcpy(t, p + n - 32, 24);
  if (t[2] != n || t[0] + t[1] + 32 > n) die("circuit trailer sizes do not match the file (truncated?)");
  embedded_t e;
  e.dat = p + n - 32 - t[1] - t[0];
  e.dat_bytes = t[0];
  e.manifest = json::parse(p + n - 32 - t[1], p + n - 32, nullptr, false);
  if (e.manifest.is_discarded()) die("circuit trailer manifest is not JSON");
  return e;
}

template <class T> const uint8_t* take(const uint8_t* p, const uint8_t* end, T* out, size_t count) {
  if (size_t(end - p) < count * sizeof(T)) die(".dat is shorter than the circuit expects");
  memcpy(out, p, count * sizeof(T));
  return p + count * sizeof(T);
}

IOFieldDefPair read_defs(const uint32_t*& pu32, size_t min_slots) {
  IOFieldDefPair pair;
  pair.len = *pu32++;
  pair.defs = static_cast<IOFieldDef*>(calloc(std::max<size_t>(pair.len, min_slots), sizeof(IOFieldDef)));
  for (u32 j = 0; j < pair.len; j++) {
    IOFieldDef& d = pair.defs[j];
    d.offset = pu32[0];
    d.len = pu32[1];
    d.lengths = new u32[d.len];
    memcpy(d.lengths, pu32 + 2, d.len * sizeof(u32));
    pu32 += d.len + 2;
    d.size = pu32[0];
    d.busId = pu32[1];
    pu32 += 2;
  }
  return pair;
}

// The .dat layout circom's main.cpp loadCircuit() reads: input hash map, witness → signal list,
// constants, then the io map of templates and buses.
Circom_Circuit* load_circuit(const uint8_t* dat, size_t bytes) {
  const uint8_t* end = dat + bytes;
  auto* c = new Circom_Circuit;
  c->InputHashMap = new HashSignalInfo[get_size_of_input_hashmap()];
  const uint8_t* p = take(dat, end, c->InputHashMap, get_size_of_input_hashmap());
  c->witness2SignalList = new u64[get_size_of_witness()];
  p = take(p, end, c->witness2SignalList, get_size_of_witness());
  c->circuitConstants = new FrElement[get_size_of_constants()];
  if (get_size_of_constants() > 0) p = take(p, end, c->circuitConstants, get_size_of_constants());
  c->busInsId2FieldInfo = nullptr;
  if (get_size_of_io_map() > 0) {
    std::vector<u32> index(get_size_of_io_map());
    p = take(p, end, index.data(), index.size());
    const uint32_t* pu32 = reinterpret_cast<const uint32_t*>(p);  // 4-aligned: the map starts at a u32 offset
    for (u32 i = 0; i < get_size_of_io_map(); i++) c->templateInsId2IOSignalInfo[index[i]] = read_defs(pu32, 0);
    c->busInsId2FieldInfo = static_cast<IOFieldDefPair*>(calloc(get_size_of_bus_field_map() + 1, sizeof(IOFieldDefPair)));
    for (u32 i = 0; i < get_size_of_bus_field_map(); i++) c->busInsId2FieldInfo[i] = read_defs(pu32, 10);
  }
  return c;
}

std::string prime_decimal() {
  mpz_t q;
  mpz_init(q);
  mpz_import(q, Fr_N64, -1, 8, -1, 0, Fr_q.longVal);
  char* s = mpz_get_str(nullptr, 10, q);
  std::string out(s);
  free(s);
  mpz_clear(q);
  return out;
}

bool write_all(int fd, const void* buf, size_t n) {
  auto* p = static_cast<const uint8_t*>(buf);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

bool read_all(int fd, void* buf, size_t n) {
  auto* p = static_cast<uint8_t*>(buf);
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

void answer(const json& j) {
  std::string s = j.dump();
  uint32_t n = uint32_t(s.size());
  if (!write_all(1, &n, 4) || !write_all(1, s.data(), s.size())) _exit(0);  // the parent has gone
}

// .wtns v2 as circom's writeBinWitness: header section (n8, prime, nVars), then the values in
// normal (not Montgomery) form, 32 bytes each, written with one write() per MiB.
// |fd| is the output file, opened by the serving process before the fork (see serve_one).
std::string write_wtns(Circom_CalcWit* ctx, int fd, const char* path) {
  const u32 n8 = Fr_N64 * 8, nvars = get_size_of_witness();
  std::vector<uint8_t> buf;
  buf.reserve(1 << 20);
  auto put = [&](const void* v, size_t n) { buf.insert(buf.end(), (const uint8_t*)v, (const uint8_t*)v + n); };
  const u32 version = 2, nsections = 2, id1 = 1, id2 = 2;
  const u64 len1 = 8 + n8, len2 = u64(n8) * nvars;
  put("wtns", 4); put(&version, 4); put(&nsections, 4);
  put(&id1, 4); put(&len1, 8); put(&n8, 4); put(Fr_q.longVal, n8); put(&nvars, 4);
  put(&id2, 4); put(&len2, 8);
  bool ok = true;
  for (u32 i = 0; i < nvars && ok; i++) {
    FrElement v;
    ctx->getWitness(i, &v);
    Fr_toLongNormal(&v, &v);
    put(v.longVal, n8);
    if (buf.size() >= (1 << 20) - n8) { ok = write_all(fd, buf.data(), buf.size()); buf.clear(); }
  }
  ok = ok && write_all(fd, buf.data(), buf.size());
  int err = errno;
  if (close(fd) != 0 || !ok) return std::string(path) + ": cannot write the witness: " + strerror(ok ? errno : err);
  return "";
}

// Child: parse and check the inputs, run the circuit, write the file; the outcome goes to |result_fd|.
[[noreturn]] void compute_child(Circom_Circuit* circuit, const input_names_t& names, const char* input, size_t input_len,
                                int out_fd, const char* out, int result_fd) {
  json res;
  try {
    auto* ctx = new Circom_CalcWit(circuit);
    std::string err = set_inputs(ctx, circuit, names, input, input_len);
    if (err.empty()) err = write_wtns(ctx, out_fd, out);
    if (err.empty()) res = {{"ok", true}};
    else res = {{"code", "E_INVALID_ARG"}, {"message", err}};
  } catch (const std::bad_alloc&) {
    res = {{"code", "E_HOST_OOM"}, {"message", "the witness generator ran out of memory (its address-space limit)"}};
  } catch (const std::exception& e) {
    res = {{"code", "E_INVALID_ARG"}, {"message", std::string("the circuit rejected the input: ") + e.what()}};
  }
  fflush(stdout);
  std::string s = res.dump();
  write_all(result_fd, s.data(), s.size());
  _exit(0);
}

std::string last_line(const std::string& s) {
  size_t e = s.find_last_not_of("\r\n ");
  if (e == std::string::npos) return "";
  size_t b = s.find_last_of('\n', e);
  return s.substr(b == std::string::npos ? 0 : b + 1, e - (b == std::string::npos ? 0 : b + 1) + 1);
}

// Runs one request in a forked child; a child that dies, overruns |timeout_ms| or answers nothing
// becomes an error answer. Circom prints "Failed assert ..." to stdout before it aborts.
json serve_one(Circom_Circuit* circuit, const input_names_t& names, const std::vector<char>& frame, uint32_t timeout_ms) {
  uint32_t out_len;
  memcpy(&out_len, frame.data() + 8, 4);
  if (12 + size_t(out_len) > frame.size()) return {{"code", "E_INVALID_ARG"}, {"message", "malformed request frame"}};
  std::string out(frame.data() + 12, out_len);
  // The file is created here, before the fork, and the child only writes to its fd: a child still
  // running after this process is killed (PDEATHSIG is delivered, not instant) can then never
  // create the file after cuzk has removed it; it writes to an unlinked inode at most.
  int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0) return {{"code", "E_INVALID_ARG"}, {"message", out + ": cannot write the witness: " + strerror(errno)}};
  int log_pipe[2], res_pipe[2];
  if (pipe2(log_pipe, O_CLOEXEC) != 0 || pipe2(res_pipe, O_CLOEXEC) != 0) {
    close(out_fd);
    unlink(out.c_str());
    return {{"code", "E_INTERNAL"}, {"message", "pipe failed"}};
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(out_fd);
    unlink(out.c_str());
    return {{"code", "E_HOST_OOM"}, {"message", std::string("fork failed: ") + strerror(errno)}};
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the parent died before prctl: no signal would come
    dup2(log_pipe[1], 1);
    dup2(log_pipe[1], 2);
    close(0);
    compute_child(circuit, names, frame.data() + 12 + out_len, frame.size() - 12 - out_len, out_fd, out.c_str(), res_pipe[1]);
  }
  close(out_fd);
  close(log_pipe[1]);
  close(res_pipe[1]);
  std::string log, result;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms ? timeout_ms : 0x7fffffff);
  bool timed_out = false;
  pollfd fds[2] = {{log_pipe[0], POLLIN, 0}, {res_pipe[0], POLLIN, 0}};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) { timed_out = true; kill(pid, SIGKILL); break; }
    if (poll(fds, 2, int(std::min<long long>(left, 1000))) < 0 && errno != EINTR) break;
    for (int k = 0; k < 2; k++) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t r = read(fds[k].fd, buf, sizeof buf);
      if (r > 0) {
        std::string& dst = k == 0 ? log : result;
        if (dst.size() < (1 << 16)) dst.append(buf, size_t(r));
      } else if (r == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
      }
    }
  }
  for (auto& f : fds) if (f.fd >= 0) close(f.fd);
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {}
  if (timed_out) {
    unlink(out.c_str());
    return {{"code", "E_TIMEOUT"}, {"message", "the witness took longer than its limit of " + std::to_string(timeout_ms) + " ms"}};
  }
  json res = json::parse(result, nullptr, false);
  if (!result.empty() && !res.is_discarded() && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    if (!res.contains("ok")) unlink(out.c_str());
    res["rssBytes"] = uint64_t(ru.ru_maxrss) * 1024;
    return res;
  }
  unlink(out.c_str());
  std::string last = last_line(log);
  if (last.rfind("Failed assert", 0) == 0 || log.find("Failed assert") != std::string::npos) {
    size_t at = log.find("Failed assert");
    std::string line = log.substr(at, log.find('\n', at) - at);
    return {{"code", "E_INVALID_ARG"}, {"message", "the input fails a circuit assertion: " + line}};
  }
  std::string how = WIFSIGNALED(status) ? std::string("killed by signal ") + strsignal(WTERMSIG(status))
                                        : "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && !last.empty())
    return {{"code", "E_INVALID_ARG"}, {"message", "the circuit rejected the input: " + last}};
  return {{"code", "E_INTERNAL"}, {"message", "the witness process " + how + (last.empty() ? "" : ": " + last)}};
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--max-address-space") == 0) {
      rlimit rl;
      rl.rlim_cur = rl.rlim_max = strtoull(argv[i + 1], nullptr, 10);
      if (setrlimit(RLIMIT_AS, &rl) != 0) die(std::string("setrlimit(RLIMIT_AS) failed: ") + strerror(errno));
    }
  }
  if (argc < 2 || strcmp(argv[1], "serve") != 0) die("usage: GEN serve [--max-address-space BYTES] (run by cuzk)");
  embedded_t e = load_embedded();
  Circom_Circuit* circuit = load_circuit(e.dat, e.dat_bytes);
  input_names_t names = input_names(circuit, e.manifest);
  answer({{"id", 0}, {"nVars", get_size_of_witness()}, {"prime", prime_decimal()}, {"inputs", get_main_input_signal_no()},
          {"manifest", e.manifest}});
  for (;;) {
    uint32_t len;
    if (!read_all(0, &len, 4)) return 0;  // stdin closed: the parent is done
    if (len < 12 || len > (1u << 30)) die("malformed request frame");
    std::vector<char> frame(len);
    if (!read_all(0, frame.data(), len)) return 0;
    uint32_t id, timeout_ms;
    memcpy(&id, frame.data(), 4);
    memcpy(&timeout_ms, frame.data() + 4, 4);
    json res = serve_one(circuit, names, frame, timeout_ms);
    res["id"] = id;
    answer(res);
  }
}
