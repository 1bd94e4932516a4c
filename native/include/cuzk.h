/* cuzk.h: the C ABI of the cuzk native core. The CPU build (libcuzk_cpu.so) and the CUDA build
 * (libcuzk_cuda.so) export exactly these symbols; src/ffi/abi.ts mirrors this file and nothing else.
 * Their test twins (libcuzk_{cpu,cuda}_test.so, for the test suites) add cuzk_test.h's hooks.
 *
 * Conventions (every function):
 *  - returns cuzk_status and fills the caller-owned |err| (may be NULL); never throws, never aborts.
 *  - byte layouts are snarkjs's: integers little-endian; a scalar is 32 bytes standard form (not
 *    Montgomery); a point is affine "LEM" (x‖y, each coordinate n8q bytes little-endian in Montgomery
 *    form x·2^(8·n8q) mod q, G2 coordinates c0‖c1), all-zero bytes = the point at infinity.
 *    n8q = 32 on BN254, 48 on BLS12-381; a G1 point is 2·n8q bytes, a G2 point 4·n8q bytes.
 *  - pointers are borrowed for the duration of the call unless a comment says otherwise.
 *  - callers (TypeScript) validate sizes and ranges first; native re-checks only what is cheap and
 *    answers CUZK_E_INVALID_ARG, which then means a TypeScript validation bug.
 *  - every function may be called from any thread (koffi .async() runs calls on a worker thread).
 */
#ifndef CUZK_H
#define CUZK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif

/* Status codes: append only, never renumber (src/errors.ts names them; a test checks both). */
typedef enum cuzk_status {
  CUZK_OK = 0,
  CUZK_E_INVALID_ARG = 1,
  CUZK_E_FORMAT = 2,
  CUZK_E_HOST_OOM = 3,
  CUZK_E_DEVICE_OOM = 4,
  CUZK_E_NO_DEVICE = 5,
  CUZK_E_CUDA = 6,
  CUZK_E_DEVICE_LOST = 7,
  CUZK_E_CANCELLED = 8,
  CUZK_E_VERIFY = 9,
  CUZK_E_INTERNAL = 10
} cuzk_status;

/* Caller-owned error slot: nothing inside is allocated, so it is safe across threads. */
typedef struct cuzk_error {
  int32_t code;
  char message[256];
} cuzk_error;

typedef enum cuzk_curve { CUZK_CURVE_BN254 = 1, CUZK_CURVE_BLS12_381 = 2 } cuzk_curve;
typedef enum cuzk_field { CUZK_FIELD_FR = 0, CUZK_FIELD_FQ = 1, CUZK_FIELD_FQ2 = 2 } cuzk_field;
typedef enum cuzk_group { CUZK_G1 = 1, CUZK_G2 = 2 } cuzk_group;

/* ---- library ---------------------------------------------------------------------------- */

/* Static strings, never freed: "CUZK_E_FORMAT"... ("CUZK_E_UNKNOWN" past the table). */
CUZK_API const char* cuzk_status_name(int32_t code);
/* "cpu" or "cuda": which build this library is. */
CUZK_API const char* cuzk_backend_name(void);
/* 1 when this build can use a GPU now (CUDA build, driver and a device present), else 0. */
CUZK_API int32_t cuzk_cuda_available(void);
/* Static string, never freed: the host field arithmetic this process uses, "x86-64-adx" (mulx/adx
 * assembly, where the CPU has BMI2 and ADX) or "generic" (portable C++, or CUZK_NO_ASM=1 set before
 * the library loaded). Both give identical results; this says which one tests and benchmarks ran. */
CUZK_API const char* cuzk_field_impl(void);
/* Worker threads for the CPU core (0 = hardware concurrency). Not to be called during other calls. */
CUZK_API cuzk_status cuzk_set_threads(uint32_t nthreads, cuzk_error* err);
/* Ends the process now with |status| (_exit): no atexit handler runs, so neither does the CUDA
 * runtime's teardown; the kernel releases the process's memory, pins and GPU contexts. For a process
 * whose work is done and whose output is written and flushed (`cuzk prove`). Never returns.
 * CUZK_EXIT_DEFER_TEARDOWN: the kernel's part too (unmapping and unpinning the key, the driver's
 * release of the context: ~100-140 ms after a one-shot proof on an H100) happens after the process
 * has ended, in a child that shares its memory and holds copies of its files (not its stdin, stdout
 * or stderr) and is killed when the process ends, so the caller's wait ends first. */
#define CUZK_EXIT_DEFER_TEARDOWN 1u
CUZK_API void cuzk_exit_now(int32_t status, uint32_t flags);
CUZK_API uint32_t cuzk_get_threads(void);

/* ---- memory: native-owned buffers handed to TypeScript as ArrayBuffers -------------------- */

typedef enum cuzk_mem_kind {
  CUZK_MEM_PLAIN = 0,  /* the heap */
  CUZK_MEM_PINNED = 1, /* page-locked now (cudaHostAlloc, ~0.5-0.8 s/GiB); plain in the CPU build */
  CUZK_MEM_MAPPED = 2  /* a private anonymous mapping, 2 MiB-aligned (huge pages advised with
                          CUZK_HUGEPAGES=1), for a key section: fill it, then cuzk_mem_pin it where a GPU reads it */
} cuzk_mem_kind;

/* Allocates |bytes| (64-byte aligned, zero-filled not guaranteed) of |kind| (cuzk_mem_kind). The
 * caller owns *out and must free it exactly once with cuzk_mem_free; any thread. */
CUZK_API cuzk_status cuzk_mem_alloc(uint64_t bytes, int32_t kind, void** out, cuzk_error* err);
CUZK_API cuzk_status cuzk_mem_free(void* ptr, cuzk_error* err);
/* Page-locks a CUZK_MEM_MAPPED buffer in place (cudaHostRegister, ~0.04 s/GiB once its pages are
 * touched; cuzk_mem_free unregisters it). Idempotent; a no-op in the CPU build or without a GPU.
 * CUZK_E_INVALID_ARG for any other pointer, CUZK_E_HOST_OOM when the system cannot lock it. */
CUZK_API cuzk_status cuzk_mem_pin(void* ptr, cuzk_error* err);

/* ---- arithmetic entry points for tests and benchmarks ------------------------------------ */

typedef enum cuzk_field_opcode {
  CUZK_FOP_ADD = 0, CUZK_FOP_SUB = 1, CUZK_FOP_MUL = 2, CUZK_FOP_SQR = 3,
  CUZK_FOP_NEG = 4, CUZK_FOP_INV = 5, /* inv(0) = 0 */
  CUZK_FOP_TO_MONT = 6, CUZK_FOP_FROM_MONT = 7
} cuzk_field_opcode;

/* out[i] = op(a[i], b[i]) for i < n. Elements are standard form (ADD..INV in and out), n8 bytes
 * each (Fq2: c0‖c1). TO_MONT maps standard → Montgomery, FROM_MONT the reverse. |b| is ignored
 * by unary ops and may be NULL. Inputs must be < the modulus (else CUZK_E_INVALID_ARG). */
CUZK_API cuzk_status cuzk_field_op(int32_t curve, int32_t field, int32_t op, const uint8_t* a,
                                   const uint8_t* b, uint8_t* out, uint64_t n, cuzk_error* err);

typedef enum cuzk_curve_opcode {
  CUZK_COP_ADD = 0,      /* out = a + b */
  CUZK_COP_DBL = 1,      /* out = 2a */
  CUZK_COP_NEG = 2,      /* out = -a */
  CUZK_COP_MUL = 3,      /* out = k·a with k = b[i] as a 32-byte standard scalar (any 256-bit value) */
  CUZK_COP_ON_CURVE = 4  /* out[i] (1 byte) = 1 if a is on the curve (infinity counts), else 0 */
} cuzk_curve_opcode;

/* Points are LEM affine (see top); output points too. */
CUZK_API cuzk_status cuzk_curve_op(int32_t curve, int32_t group, int32_t op, const uint8_t* a,
                                   const uint8_t* b, uint8_t* out, uint64_t n, cuzk_error* err);

/* Checks |n| LEM affine points of |group| (all-zero = infinity, allowed): each coordinate below q,
 * each point on its curve and, when |subgroup| is nonzero, in the r-torsion (r·P = O; ~0.1-0.5 ms a
 * point, for a handful of verification-key points). Threaded. *first_bad = the index of the first
 * bad point and *why its defect (1 a coordinate not below q, 2 off the curve, 3 not in the
 * subgroup), or -1 and 0 when every point is good; a bad point is a result, not an error. */
CUZK_API cuzk_status cuzk_points_check(int32_t curve, int32_t group, const uint8_t* points, uint64_t n,
                                       int32_t subgroup, int64_t* first_bad, int32_t* why, cuzk_error* err);

/* One part of a file for cuzk_file_read_checked: |bytes| from |file_offset| into |dest|, checked
 * as |check| says. 48 bytes, fields in this order. */
typedef enum cuzk_read_check {
  CUZK_READ_RAW = 0,   /* bytes only */
  CUZK_READ_G1 = 1,    /* LEM G1 affine points: coordinates below q, on the curve (as cuzk_points_check) */
  CUZK_READ_G2 = 2,    /* LEM G2 affine points, likewise */
  CUZK_READ_COEFS = 3, /* zkey section 4 records {u32 matrix, u32 constraint, u32 signal, Fr value}:
                          matrix < 2, constraint < domain_size, signal < n_vars, value below r */
  CUZK_READ_FR = 4     /* 32-byte LE scalars (a .wtns's values, standard form): each below r */
} cuzk_read_check;

typedef enum cuzk_read_defect {
  CUZK_READ_OK = 0,
  /* 1-3: a point's defect, as cuzk_points_check's |why| */
  CUZK_READ_BAD_RECORD = 4, /* a coefficient record out of range (first_bad: its index) */
  CUZK_READ_ENDED = 5,      /* the file ended before the part did (first_bad: the file byte) */
  CUZK_READ_IO = 6,         /* a read failed (first_bad: the file byte; os_error: errno) */
  CUZK_READ_BAD_SCALAR = 7  /* a CUZK_READ_FR scalar not below r (first_bad: its index) */
} cuzk_read_defect;

typedef struct cuzk_read_part {
  uint64_t file_offset; /* in */
  uint64_t bytes;       /* in: a whole number of |check|'s items */
  void* dest;           /* in: caller-owned, at least |bytes|; written only during the call */
  int32_t check;        /* in: cuzk_read_check */
  int32_t defect;       /* out: cuzk_read_defect */
  int64_t first_bad;    /* out: the first bad item's index (1-4) or file byte (5-6), -1 when none */
  int32_t os_error;     /* out: errno for CUZK_READ_IO */
  int32_t flags;        /* in: cuzk_read_flags (0 before flags existed: the field was reserved) */
} cuzk_read_part;

typedef enum cuzk_read_flags {
  /* |dest| holds zeros already (a fresh anonymous mapping): a stretch of the part that is a hole in
   * the file (a sparse file, SEEK_DATA) is not copied, its pages left untouched, and is checked as
   * one item of zeros stands for all of them */
  CUZK_READ_DEST_ZEROED = 1
} cuzk_read_flags;

/* Reads |n| parts of the open file |fd| (positional reads, pread) in chunks of up to 4 MiB on the
 * thread pool, each chunk checked as soon as it is in, while the bytes are still in cache: the key
 * loader's one pass over a zkey's big sections (the page cache to memory at the threads' combined
 * speed, the point checks beside the reads). Chunks run in file order; once a part has a defect,
 * chunks after it in the file are skipped, so the defect with the lowest file position is always
 * found; parts behind it may report none. A defect is a result, not an error: the status is CUZK_OK.
 * |curve| is the points' curve; |domain_size| and |n_vars| bound the coefficient records. */
/* |fd| is the caller's open descriptor (read with pread, so its offset is untouched; not closed);
 * |parts| is caller-owned and written during the call only. */
CUZK_API cuzk_status cuzk_file_read_checked(int32_t fd, int32_t curve, uint32_t domain_size, uint64_t n_vars,
                                            cuzk_read_part* parts, uint64_t n, cuzk_error* err);

/* A witness's |n| values (32-byte standard scalars of |curve|'s scalar field, a .wtns section 2) into
 * |dest| (caller-owned, at least 32·n bytes, e.g. a pinned buffer the GPU uploads from), in chunks on
 * the thread pool, each chunk checked below r as it lands: from bytes [offset, offset + 32·n) of the
 * open file |fd| (pread; |src| NULL), or with |fd| < 0 from memory |src| + |offset| (a .wtns image the
 * caller holds, at least that long). One pass instead of a copy then a check on the caller's thread.
 * *defect = CUZK_READ_OK, CUZK_READ_BAD_SCALAR (*first_bad: the lowest bad index), CUZK_READ_ENDED or
 * CUZK_READ_IO (*first_bad: the file byte; *os_error: errno); a defect is a result, not an error. */
CUZK_API cuzk_status cuzk_scalars_read_checked(int32_t fd, const uint8_t* src, uint64_t offset, int32_t curve,
                                               uint64_t n, uint8_t* dest, int32_t* defect, int64_t* first_bad,
                                               int32_t* os_error, cuzk_error* err);

/* out = sum scalars[i]·points[i] (Pippenger, signed windows, multi-threaded). Scalars are 32-byte
 * standard form (callers pass values < r). Zero scalars and infinity points are allowed; points
 * must be on the curve (callers check untrusted points). |out| is one LEM affine point. */
CUZK_API cuzk_status cuzk_msm(int32_t curve, int32_t group, const uint8_t* points,
                              const uint8_t* scalars, uint64_t npoints, uint8_t* out, cuzk_error* err);

/* out[i] = scalars[i]·base (fixed-base windowed; for dev-setup), scalars 32-byte standard form (any
 * 256-bit value). |out| holds n LEM affine points. The CUDA build runs it on GPU 0 from 2^12 scalars
 * (cuzk_set_gpu_mode, CUZK_GPU); the bytes are the same either way. */
CUZK_API cuzk_status cuzk_batch_mul(int32_t curve, int32_t group, const uint8_t* base,
                                    const uint8_t* scalars, uint64_t n, uint8_t* out, cuzk_error* err);

/* Dev-setup arithmetic (cuzk dev-setup: INSECURE keys from a known τ; groth16/dev_setup.hpp). Fr
 * scalars are 32-byte standard form < r unless noted. */

/* out[j] = scale·L_{first + j·stride}(τ) for j < count (32-byte standard form): the Lagrange basis
 * of the 2^lg_n domain of ω = snarkjs's Fr.w[lg_n], L_m(τ) = (τ^N − 1)/N · ω^m/(τ − ω^m). τ in the
 * domain (τ^N = 1) is CUZK_E_INVALID_ARG. Threaded. */
CUZK_API cuzk_status cuzk_lagrange_eval(int32_t curve, const uint8_t* tau, const uint8_t* scale, uint32_t lg_n,
                                        uint64_t first, uint64_t stride, uint64_t count, uint8_t* out,
                                        cuzk_error* err);

/* One pass over .r1cs section 2 bytes |data| (starting at a constraint): the whole constraints that
 * fit in |len|, at most |max_rows|, numbered from |first_row|. For each term of matrix m (A, B, C;
 * coefficients reduced mod r): acc_m[wire] += coef·l[k] for the k-th constraint of the pass (|l|:
 * standard form, one per row); acc_a, acc_b, acc_c hold n_wires elements each, 8-byte aligned,
 * zeroed by the caller before the first pass and kept in the core's Montgomery form between passes.
 * A and B terms append the zkey's 44-byte coefficient record {u32 m, u32 row, u32 wire, coef·R² mod r}
 * to |coefs| (coefs_cap records, at least len/36). done[0..2] = bytes consumed, rows, records. A wire
 * >= n_wires is CUZK_E_FORMAT naming the first such term. Threaded. */
CUZK_API cuzk_status cuzk_r1cs_accumulate(int32_t curve, const uint8_t* data, uint64_t len, uint32_t first_row,
                                          uint64_t max_rows, uint32_t n_wires, const uint8_t* l, uint8_t* acc_a,
                                          uint8_t* acc_b, uint8_t* acc_c, uint8_t* coefs, uint64_t coefs_cap,
                                          uint64_t* done, cuzk_error* err);

/* In place over the accumulators of cuzk_r1cs_accumulate: A_j and B_j to standard form, and C_j
 * replaced by (β·A_j + α·B_j + C_j)/γ for j <= n_public (the IC scalars), /δ for the rest. */
CUZK_API cuzk_status cuzk_qap_combine(int32_t curve, uint8_t* acc_a, uint8_t* acc_b, uint8_t* acc_c, uint32_t n_wires,
                                      uint32_t n_public, const uint8_t* alpha, const uint8_t* beta,
                                      const uint8_t* gamma, const uint8_t* delta, cuzk_error* err);

/* NTT flags. */
#define CUZK_NTT_INVERSE 1u /* inverse transform (scaled by 1/n) */
#define CUZK_NTT_COSET 2u   /* the snarkjs odd coset: forward evaluates at g·ω_n^j, inverse undoes it,
                               with g = ω_{2n} (snarkjs Fr.w[k+1]; Fr.shift when k = 2-adicity) */

/* In-place radix-2 NTT over Fr of 2^|lg_n| standard-form elements, natural order in and out, with
 * ω_n = snarkjs's Fr.w[lg_n] (so the result equals ffjavascript's Fr.fft / Fr.ifft). */
CUZK_API cuzk_status cuzk_ntt(int32_t curve, uint8_t* data, uint32_t lg_n, uint32_t flags,
                              cuzk_error* err);

/* Optimal ate pairing product: out = prod e(g1[i], g2[i]) after the final exponentiation, as Fq12
 * in standard form, 12·n8q bytes (coefficient order of the tower documented in pairing/fp12.hpp). */
CUZK_API cuzk_status cuzk_pairing(int32_t curve, const uint8_t* g1, const uint8_t* g2, uint64_t n,
                                  uint8_t* out, cuzk_error* err);

/* ---- Groth16 ----------------------------------------------------------------------------- */

/* A proving key borrowed from buffers the caller owns (snarkjs zkey sections, byte-for-byte).
 * Every pointer must stay valid and unchanged until cuzk_key_destroy returns. */
typedef struct cuzk_key_desc {
  int32_t curve;
  uint32_t n_vars;      /* wires, including wire 0 = 1 */
  uint32_t n_public;    /* public outputs + public inputs (excluding wire 0) */
  uint32_t domain_size; /* power of two */
  uint64_t n_coefs;
  const uint8_t* alpha1;  /* G1 */
  const uint8_t* beta1;   /* G1 */
  const uint8_t* beta2;   /* G2 */
  const uint8_t* delta1;  /* G1 */
  const uint8_t* delta2;  /* G2 */
  const uint8_t* coefs;   /* section 4 after its u32 count: n_coefs × {u32 m, u32 c, u32 s, fr[32]} */
  const uint8_t* points_a;   /* section 5: n_vars G1 */
  const uint8_t* points_b1;  /* section 6: n_vars G1 */
  const uint8_t* points_b2;  /* section 7: n_vars G2 */
  const uint8_t* points_c;   /* section 8: n_vars - n_public - 1 G1 */
  const uint8_t* points_h;   /* section 9: domain_size G1 */
} cuzk_key_desc;

typedef struct cuzk_key cuzk_key; /* opaque; created and destroyed only by the two calls below */

/* Validates |desc| (record indices are trusted: TypeScript checked them) and builds a key.
 * *out is owned by the caller, freed with cuzk_key_destroy; it may be used by one proof at a time
 * per thread, several threads may prove with the same key concurrently. */
CUZK_API cuzk_status cuzk_key_create(const cuzk_key_desc* desc, cuzk_key** out, cuzk_error* err);
CUZK_API cuzk_status cuzk_key_destroy(cuzk_key* key, cuzk_error* err);

/* What one proof (or one phase of it) did, filled by the two calls below: milliseconds of wall time
 * per phase (GPU phases timed with CUDA events on the proof's stream), the stream time kernels ran
 * (kernel_ms: the part of the wall time the device was busy for this proof; 0 on the CPU core), and
 * the bytes copied host -> device. Fields a call does not touch are left as they were, so the same
 * struct can be passed to synthesize and then to prove_ab. */
typedef struct cuzk_prove_stats {
  double synth_ms;   /* A·w, B·w over the coefficient records: CPU threads (synthesize), or on the GPU
                        (prove_ab on a device: its synthesis kernels' stream time) */
  double h2d_ms;
  double ntt_ms;     /* the 6 transforms, C = A∘B and H = A·B − C */
  double msm_ms;     /* the 5 MSMs */
  double d2h_ms;
  double finish_ms;  /* randomisation, affine conversion */
  double total_ms;   /* wall time of the call */
  double kernel_ms;
  uint64_t h2d_bytes;
  int32_t device;    /* GPU ordinal the call ran on, -1 for the CPU core */
  int32_t reserved;
  double wait_ms;    /* GPU: time spent waiting for the device's compute region (another proof's kernels) */
} cuzk_prove_stats;

/* One Groth16 proof, the snarkjs algorithm: on the CPU core two calls, cuzk_groth16_synthesize then
 * cuzk_groth16_prove_ab(device -1) (the engine overlaps one proof's phase 2 with the next one's
 * phase 1); on a GPU one call, cuzk_groth16_prove_ab(device N, ab = NULL), which synthesizes A and B
 * on the device from the key's resident coefficients, so phase 1 takes no CPU and no A ‖ B buffer
 * or upload. |witness| = n_vars 32-byte standard scalars (< r); |r| and |s| = 32-byte
 * standard randomisers (< r). |proof_out| = A (G1) ‖ B (G2) ‖ C (G1), LEM affine. |cancel| may be
 * NULL; when it points to a nonzero value the call stops at its next phase boundary with
 * CUZK_E_CANCELLED.
 *
 * Phase 1 of a proof, on the CPU threads: A = (A-matrix)·w and B = (B-matrix)·w over the key's
 * section-4 records, written to |ab| = A ‖ B, 2 × domain_size × 32 bytes (Montgomery form). |ab| is
 * meant to be pinned memory from cuzk_mem_alloc, so that phase 2 uploads it at full PCIe speed. */
CUZK_API cuzk_status cuzk_groth16_synthesize(const cuzk_key* key, const uint8_t* witness, uint8_t* ab,
                                             const volatile int32_t* cancel, cuzk_prove_stats* stats,
                                             cuzk_error* err);

/* Phase 2: the transforms, H, the five MSMs and the randomisation. |device| = -1 runs on the CPU
 * core from |ab| as phase 1 left it (|ab| is scratch afterwards). N >= 0 runs the whole proof on GPU
 * N, synthesis included, and |ab| must be NULL (CUZK_E_INVALID_ARG otherwise); the key's points and
 * coefficients are uploaded on first use there unless cuzk_gpu_key_upload did it before, and
 * stats->synth_ms is then the device's synthesis time. The CPU build answers CUZK_E_NO_DEVICE for
 * N >= 0. The proof's bytes are the same on every device for the same inputs. Several calls may run
 * on one GPU at once: each uploads its witness, then takes the device's compute region in turn. */
CUZK_API cuzk_status cuzk_groth16_prove_ab(const cuzk_key* key, const uint8_t* witness, uint8_t* ab,
                                           int32_t device, const uint8_t* r, const uint8_t* s,
                                           uint8_t* proof_out, const volatile int32_t* cancel,
                                           cuzk_prove_stats* stats, cuzk_error* err);

/* ---- GPUs -------------------------------------------------------------------------------- */

typedef struct cuzk_gpu_desc {
  char name[128];
  uint64_t memory_total;
  uint64_t memory_free;
  int32_t sm_count;
  int32_t cc_major;
  int32_t cc_minor;
  int32_t reserved;
} cuzk_gpu_desc;

/* Usable GPUs (0 in the CPU build, without a driver or without devices). */
CUZK_API int32_t cuzk_gpu_count(void);
CUZK_API cuzk_status cuzk_gpu_describe(int32_t device, cuzk_gpu_desc* out, cuzk_error* err);
/* Creates |device|'s CUDA context now (cudaSetDevice, cudaFree(0)), so the first real GPU call does
 * not pay for it: a one-shot prover calls it on a worker thread while it reads the key (an H200's
 * context costs ~100-300 ms). Idempotent; CUZK_E_NO_DEVICE in the CPU build or without the device. */
CUZK_API cuzk_status cuzk_gpu_warm(int32_t device, cuzk_error* err);
/* Where the automatic entry points (cuzk_msm, cuzk_ntt) send work:
 * 0 = never the GPU, 1 = by size (default; CUZK_GPU in the environment sets the start value),
 * 2 = always the GPU when one is present. */
CUZK_API cuzk_status cuzk_set_gpu_mode(int32_t mode, cuzk_error* err);
/* Bytes of device memory a key takes on a GPU (the same on every GPU): its points plus its
 * coefficients in the GPU synthesis layout (row offsets, u32 wire and 32-byte value per record, the
 * long-row list at its largest), from the key's sizes alone; an upload allocates no more. */
CUZK_API uint64_t cuzk_gpu_key_bytes(const cuzk_key* key);
/* The sets of a key that cuzk_gpu_key_upload may stream, one bit each. */
#define CUZK_KEY_SET_A 1u
#define CUZK_KEY_SET_B1 2u
#define CUZK_KEY_SET_B2 4u
#define CUZK_KEY_SET_C 8u
#define CUZK_KEY_SET_H 16u
#define CUZK_KEY_SET_COEFS 32u
/* Places the key's points and coefficients on |device| now (idempotent: a key already there keeps
 * its placement; the layout is built on the CPU threads once per upload), or frees them there
 * (evict). The sets in |streamed_sets| (CUZK_KEY_SET_* bits; 0 = all resident, what a proof's first
 * use places) are not uploaded: each proof reads them from the key's host memory (its sections,
 * pinned in place, for points; for coefficients a page-locked copy of the GPU layout the call
 * allocates, n_coefs x 36 bytes) in chunks of |chunk_points| points (> 0 when a point set is
 * streamed) or about |chunk_records| records (> 0 when the coefficients are), each chunk's upload
 * overlapped with the work on the chunk before; a proof then needs, beside its scratch, two staging
 * chunks per streamed set that one of its MSMs reads. The proof is the same either way.
 * The masks and the layout's row offsets are always resident. CUZK_E_DEVICE_OOM when the resident
 * part does not fit: nothing stays allocated, and the key's proofs belong on the CPU core. */
CUZK_API cuzk_status cuzk_gpu_key_upload(const cuzk_key* key, int32_t device, uint32_t streamed_sets,
                                         uint64_t chunk_points, uint64_t chunk_records, cuzk_error* err);
CUZK_API cuzk_status cuzk_gpu_key_evict(const cuzk_key* key, int32_t device, cuzk_error* err);

/* Groth16 verification (snarkjs's equation). |vk| = alpha1 (G1) ‖ beta2 ‖ gamma2 ‖ delta2 (G2) ‖
 * IC[n_public + 1] (G1); |publics| = n_public 32-byte standard scalars (< r, checked by caller);
 * |proof| as produced by cuzk_groth16_prove_ab. *valid = 1 if the proof verifies, 0 if not (points
 * off the curve or not in the subgroup are "not valid", not an error). */
CUZK_API cuzk_status cuzk_groth16_verify(int32_t curve, const uint8_t* vk, const uint8_t* publics,
                                         uint32_t n_public, const uint8_t* proof, int32_t* valid,
                                         cuzk_error* err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_H */
