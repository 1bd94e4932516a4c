// koffi declarations mirroring native/include/cuzk.h, and in testHooks native/include/cuzk_test.h
// (bound only from a test library, libcuzk_*_test.so: a release library has none). Pointer arguments typed
// `uint8_t *` accept Uint8Arrays (koffi passes their address; valid only during the call);
// `void *` fields carry native-owned addresses that outlive calls (see native-buffer.ts).
import koffi, { type LibraryHandle } from 'koffi';
import { CuzkError } from '../errors.js';

export const cuzkError = koffi.struct('cuzk_error', {
  code: 'int32_t',
  message: koffi.array('char', 256, 'String'),
});

export const cuzkKeyDesc = koffi.struct('cuzk_key_desc', {
  curve: 'int32_t',
  n_vars: 'uint32_t',
  n_public: 'uint32_t',
  domain_size: 'uint32_t',
  n_coefs: 'uint64_t',
  alpha1: 'void *',
  beta1: 'void *',
  beta2: 'void *',
  delta1: 'void *',
  delta2: 'void *',
  coefs: 'void *',
  points_a: 'void *',
  points_b1: 'void *',
  points_b2: 'void *',
  points_c: 'void *',
  points_h: 'void *',
});

export const cuzkKey = koffi.opaque('cuzk_key');

export const cuzkProveStats = koffi.struct('cuzk_prove_stats', {
  synth_ms: 'double',
  h2d_ms: 'double',
  ntt_ms: 'double',
  msm_ms: 'double',
  d2h_ms: 'double',
  finish_ms: 'double',
  total_ms: 'double',
  kernel_ms: 'double',
  h2d_bytes: 'uint64_t',
  device: 'int32_t',
  reserved: 'int32_t',
  wait_ms: 'double',
});

export const cuzkGpuDesc = koffi.struct('cuzk_gpu_desc', {
  name: koffi.array('char', 128, 'String'),
  memory_total: 'uint64_t',
  memory_free: 'uint64_t',
  sm_count: 'int32_t',
  cc_major: 'int32_t',
  cc_minor: 'int32_t',
  reserved: 'int32_t',
});

// A symbol missing from the library becomes a function that throws when called, so a partial
// build (during development) still loads and says exactly what it lacks.
type Fn = ReturnType<LibraryHandle['func']>;
function bind(lib: LibraryHandle, name: string, def: () => Fn): Fn {
  try {
    return def();
  } catch (cause) {
    const missing = (() => {
      throw new Error(`${name} is not in this build of the native core (${(cause as Error).message})`);
    }) as unknown as Fn;
    return Object.assign(missing, { async: missing });
  }
}

// A test hook asked of a release library: a function that says so when called (it never binds the
// symbol, which such a library does not have).
function absent(name: string, libPath: string): Fn {
  const missing = (() => {
    throw new CuzkError('E_INTERNAL', `${name} is a test hook: ${libPath} is a release library; load libcuzk_*_test.so (CUZK_NATIVE_TEST_HOOKS=1, as npm test sets)`);
  }) as unknown as Fn;
  return Object.assign(missing, { async: missing });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Declare = { f: (name: string, ret: string, args: any[]) => Fn; c: (name: string, proto: string) => Fn };

/** native/include/cuzk_test.h: the test libraries' hooks (native/api/debug_*.cpp). */
function testHooks({ f, c }: Declare) {
  const E = koffi.out(koffi.pointer(cuzkError));
  return {
    debug_ifma: c('cuzk_debug_ifma', 'int32_t cuzk_debug_ifma(void)'),
    debug_fq8_op: f('cuzk_debug_fq8_op', 'int32_t', ['int32_t', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint64_t', E]),
    debug_gpu_counter: c('cuzk_debug_gpu_counter', 'uint64_t cuzk_debug_gpu_counter(int32_t)'),
    debug_bingcd_inv: f('cuzk_debug_bingcd_inv', 'int32_t', ['int32_t', 'uint8_t *', 'uint8_t *', 'uint64_t', E]),
    debug_fail_next: f('cuzk_debug_fail_next', 'int32_t', ['int32_t', 'int32_t', E]),
    debug_affine_lanes: f('cuzk_debug_affine_lanes', 'int32_t', ['int32_t', 'int32_t', 'uint8_t *', 'uint64_t', 'uint32_t *', 'uint32_t *', 'uint64_t', 'uint32_t', 'uint32_t', 'uint32_t', 'uint8_t *', 'uint64_t', 'uint8_t *', 'uint8_t *', E]),
  };
}

/** `hooks`: whether `lib` is a test library (its cuzk_test.h hooks are bound; else each throws when called). */
export function declare(lib: LibraryHandle, { hooks, libPath }: { hooks: boolean; libPath: string }) {
  const E = koffi.out(koffi.pointer(cuzkError));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const f = (name: string, ret: string, args: any[]) => bind(lib, name, () => lib.func(name, ret, args));
  const c = (name: string, proto: string) => bind(lib, name, () => lib.func(proto));
  const release: Declare = { f: (name) => absent(name, libPath), c: (name) => absent(name, libPath) };
  return {
    ...testHooks(hooks ? { f, c } : release),
    status_name: c('cuzk_status_name', 'const char *cuzk_status_name(int32_t code)'),
    backend_name: c('cuzk_backend_name', 'const char *cuzk_backend_name(void)'),
    cuda_available: c('cuzk_cuda_available', 'int32_t cuzk_cuda_available(void)'),
    field_impl: c('cuzk_field_impl', 'const char *cuzk_field_impl(void)'),
    set_threads: f('cuzk_set_threads', 'int32_t', ['uint32_t', E]),
    get_threads: c('cuzk_get_threads', 'uint32_t cuzk_get_threads(void)'),
    exit_now: c('cuzk_exit_now', 'void cuzk_exit_now(int32_t status, uint32_t flags)'),
    mem_alloc: f('cuzk_mem_alloc', 'int32_t', ['uint64_t', 'int32_t', koffi.out(koffi.pointer('void *')), E]),
    mem_free: f('cuzk_mem_free', 'int32_t', ['void *', E]),
    mem_pin: f('cuzk_mem_pin', 'int32_t', ['void *', E]),
    field_op: f('cuzk_field_op', 'int32_t', ['int32_t', 'int32_t', 'int32_t', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint64_t', E]),
    curve_op: f('cuzk_curve_op', 'int32_t', ['int32_t', 'int32_t', 'int32_t', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint64_t', E]),
    // parts: cuzk_read_part[n] as bytes (key-read.ts encodes and decodes them), read and written by the call
    file_read_checked: f('cuzk_file_read_checked', 'int32_t', ['int32_t', 'int32_t', 'uint32_t', 'uint64_t', 'uint8_t *', 'uint64_t', E]),
    // src: a .wtns image or NULL (a file read); dest: the witness buffer; outs: defect, first bad, errno
    scalars_read_checked: f('cuzk_scalars_read_checked', 'int32_t', ['int32_t', 'uint8_t *', 'uint64_t', 'int32_t', 'uint64_t', 'uint8_t *', koffi.out(koffi.pointer('int32_t')), koffi.out(koffi.pointer('int64_t')), koffi.out(koffi.pointer('int32_t')), E]),
    points_check: f('cuzk_points_check', 'int32_t', ['int32_t', 'int32_t', 'uint8_t *', 'uint64_t', 'int32_t', koffi.out(koffi.pointer('int64_t')), koffi.out(koffi.pointer('int32_t')), E]),
    msm: f('cuzk_msm', 'int32_t', ['int32_t', 'int32_t', 'uint8_t *', 'uint8_t *', 'uint64_t', 'uint8_t *', E]),
    batch_mul: f('cuzk_batch_mul', 'int32_t', ['int32_t', 'int32_t', 'uint8_t *', 'uint8_t *', 'uint64_t', 'uint8_t *', E]),
    lagrange_eval: f('cuzk_lagrange_eval', 'int32_t', ['int32_t', 'uint8_t *', 'uint8_t *', 'uint32_t', 'uint64_t', 'uint64_t', 'uint64_t', 'uint8_t *', E]),
    r1cs_accumulate: f('cuzk_r1cs_accumulate', 'int32_t', ['int32_t', 'uint8_t *', 'uint64_t', 'uint32_t', 'uint64_t', 'uint32_t', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint64_t', 'uint8_t *', E]),
    qap_combine: f('cuzk_qap_combine', 'int32_t', ['int32_t', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint32_t', 'uint32_t', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'uint8_t *', E]),
    ntt: f('cuzk_ntt', 'int32_t', ['int32_t', 'uint8_t *', 'uint32_t', 'uint32_t', E]),
    pairing: f('cuzk_pairing', 'int32_t', ['int32_t', 'uint8_t *', 'uint8_t *', 'uint64_t', 'uint8_t *', E]),
    key_create: f('cuzk_key_create', 'int32_t', [koffi.pointer(cuzkKeyDesc), koffi.out(koffi.pointer(koffi.pointer(cuzkKey))), E]),
    key_destroy: f('cuzk_key_destroy', 'int32_t', [koffi.pointer(cuzkKey), E]),
    // A‖B is `void *`: a Uint8Array, or a NativeBuffer's address (the CPU core's A‖B passes 4 GiB, what one Uint8Array holds, past a 2^26 domain)
    groth16_synthesize: f('cuzk_groth16_synthesize', 'int32_t', [koffi.pointer(cuzkKey), 'uint8_t *', 'void *', 'int32_t *', koffi.out(koffi.pointer(cuzkProveStats)), E]),
    groth16_prove_ab: f('cuzk_groth16_prove_ab', 'int32_t', [koffi.pointer(cuzkKey), 'uint8_t *', 'void *', 'int32_t', 'uint8_t *', 'uint8_t *', 'uint8_t *', 'int32_t *', koffi.out(koffi.pointer(cuzkProveStats)), E]),
    gpu_count: c('cuzk_gpu_count', 'int32_t cuzk_gpu_count(void)'),
    gpu_describe: f('cuzk_gpu_describe', 'int32_t', ['int32_t', koffi.out(koffi.pointer(cuzkGpuDesc)), E]),
    gpu_warm: f('cuzk_gpu_warm', 'int32_t', ['int32_t', E]),
    set_gpu_mode: f('cuzk_set_gpu_mode', 'int32_t', ['int32_t', E]),
    gpu_key_bytes: f('cuzk_gpu_key_bytes', 'uint64_t', [koffi.pointer(cuzkKey)]),
    gpu_key_upload: f('cuzk_gpu_key_upload', 'int32_t', [koffi.pointer(cuzkKey), 'int32_t', 'uint32_t', 'uint64_t', 'uint64_t', E]),
    gpu_key_evict: f('cuzk_gpu_key_evict', 'int32_t', [koffi.pointer(cuzkKey), 'int32_t', E]),
    groth16_verify: f('cuzk_groth16_verify', 'int32_t', ['int32_t', 'uint8_t *', 'uint8_t *', 'uint32_t', 'uint8_t *', koffi.out(koffi.pointer('int32_t')), E]),
  };
}

export type Abi = ReturnType<typeof declare>;
