// micrograd2's CUDA kernels: one file, compiled once per floating-point dtype.
//
// The Python loader (kernel_source.py) puts `#define MG2_REAL float` (or double) in front of this
// file, so every kernel exists for float32 and for float64; `real_t` below is that type.  Every
// kernel is `extern "C"`, so its name in the compiled module is the name written here.
//
// Conventions
// * Arrays are contiguous.  An input that is broadcast or transposed is described by a *layout*:
//   `dims[ndim]`, then each input's `strides[ndim]` (in elements; 0 on a broadcast dimension).
//   ndim >= 1 (a scalar is shape (1,)), at most MAX_DIMS.
// * Parameters come in order of decreasing alignment (pointers, long long, real_t, int), so any
//   way of packing the arguments gives the layout the kernel expects.
// * Elementwise kernels loop with a grid stride, so any grid size is correct.
// * Reductions use shared memory and __syncthreads(), never warp shuffles: the same source runs
//   unchanged on the CPU emulator in tests/cuda_emu/, one std::thread per CUDA thread.

#ifndef MG2_REAL
#define MG2_REAL float
#endif
typedef MG2_REAL real_t;
typedef long long index_t;

#define MAX_DIMS 8
#define BLOCK_THREADS 256  // the most threads a row kernel (reduce_rows, ...) may be launched with

// Operation codes: positions in BINARY_OPS / UNARY_OPS of backends/base.py (kernel_source.py checks).
enum BinaryOp { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_MAXIMUM, OP_GT, OP_EQ };
enum UnaryOp { OP_NEG, OP_EXP, OP_LOG, OP_TANH, OP_SQRT, OP_ABS, OP_RELU, OP_SIGMOID, OP_SIGN, OP_COPY };
enum ReduceOp { REDUCE_SUM, REDUCE_MAX };

// ------------------------------------------------------------------------------------------------
// Scalar math
// ------------------------------------------------------------------------------------------------

// max(a, b) that propagates NaN, as numpy.maximum does
__device__ __forceinline__ real_t nan_max(real_t a, real_t b) { return (a != a || a > b) ? a : b; }

// 1 / (1 + e^-x), PyTorch's formula (e^-x overflowing to inf gives 0)
__device__ __forceinline__ real_t sigmoid(real_t x) { return real_t(1) / (real_t(1) + exp(-x)); }

__device__ __forceinline__ real_t apply_binary(int op, real_t a, real_t b) {
  switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_POW: return pow(a, b);
    case OP_MAXIMUM: return nan_max(a, b);
    case OP_GT: return a > b ? real_t(1) : real_t(0);
    case OP_EQ: return a == b ? real_t(1) : real_t(0);
  }
  return a;
}

__device__ __forceinline__ real_t apply_unary(int op, real_t x) {
  switch (op) {
    case OP_NEG: return -x;
    case OP_EXP: return exp(x);
    case OP_LOG: return log(x);
    case OP_TANH: return tanh(x);
    case OP_SQRT: return sqrt(x);
    case OP_ABS: return fabs(x);
    case OP_RELU: return x < real_t(0) ? real_t(0) : x;  // -0.0 and NaN pass, as PyTorch's relu
    case OP_SIGMOID: return sigmoid(x);
    case OP_SIGN: return x > real_t(0) ? real_t(1) : (x < real_t(0) ? real_t(-1) : x);  // 0 and NaN stay
    case OP_COPY: return x;
  }
  return x;
}

__device__ __forceinline__ real_t reduce_identity(int op) { return op == REDUCE_SUM ? real_t(0) : -INFINITY; }

__device__ __forceinline__ real_t reduce_combine(int op, real_t a, real_t b) {
  return op == REDUCE_SUM ? a + b : nan_max(a, b);
}

// Does (a at index ia) win argmax over (b at index ib)?  NaN first (as numpy), then larger, then earlier.
__device__ __forceinline__ bool argmax_beats(real_t a, index_t ia, real_t b, index_t ib) {
  if (a != a) return b == b || ia < ib;
  if (b != b) return false;
  return a > b || (a == b && ia < ib);
}

// ------------------------------------------------------------------------------------------------
// Indexing helpers
// ------------------------------------------------------------------------------------------------

// The first index this thread handles in a grid-stride loop, and the stride.
__device__ __forceinline__ index_t grid_start() { return (index_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ index_t grid_stride() { return (index_t)gridDim.x * blockDim.x; }

// offset[k] = sum_d coord_d(i) * strides_k[d]: where output element i reads input k.
template <int NIN>
__device__ __forceinline__ void unravel(index_t i, const index_t* __restrict__ layout, int ndim,
                                        index_t (&offset)[NIN]) {
  for (int k = 0; k < NIN; ++k) offset[k] = 0;
  for (int d = ndim - 1; d > 0; --d) {
    index_t coord = i % layout[d];
    i /= layout[d];
    for (int k = 0; k < NIN; ++k) offset[k] += coord * layout[(k + 1) * ndim + d];
  }
  for (int k = 0; k < NIN; ++k) offset[k] += i * layout[(k + 1) * ndim];
}

// Tree reduction of one value per thread over the block (blockDim.x a power of two <= BLOCK_THREADS).
__device__ real_t block_reduce(int op, real_t value, real_t* partial) {
  partial[threadIdx.x] = value;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] = reduce_combine(op, partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  real_t total = partial[0];
  __syncthreads();  // every thread has read partial[0] before anyone writes it again
  return total;
}

// ------------------------------------------------------------------------------------------------
// Elementwise
// ------------------------------------------------------------------------------------------------

template <typename out_t>
__device__ void binary_body(const real_t* a, const real_t* b, out_t* out, const index_t* layout, index_t n,
                            int ndim, int op) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) {
    index_t offset[2];
    unravel<2>(i, layout, ndim, offset);
    out[i] = (out_t)apply_binary(op, a[offset[0]], b[offset[1]]);
  }
}

// out[i] = a[i] (op) b[i], with a and b broadcast through `layout` (out may alias a: in-place ops)
extern "C" __global__ void binary_op(const real_t* a, const real_t* b, real_t* out, const index_t* layout,
                                     index_t n, int ndim, int op) {
  binary_body<real_t>(a, b, out, layout, n, ndim, op);
}

// out[i] = (a[i] > b[i]) or (a[i] == b[i]) as bool bytes, a and b broadcast through `layout`
extern "C" __global__ void compare_op(const real_t* a, const real_t* b, unsigned char* out,
                                      const index_t* layout, index_t n, int ndim, int op) {
  binary_body<unsigned char>(a, b, out, layout, n, ndim, op);
}

// out[i] = f(x[i]), x read through `layout` (OP_COPY makes transposes and broadcasts contiguous)
extern "C" __global__ void unary_op(const real_t* x, real_t* out, const index_t* layout, index_t n, int ndim,
                                    int op) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) {
    index_t offset[1];
    unravel<1>(i, layout, ndim, offset);
    out[i] = apply_unary(op, x[offset[0]]);
  }
}

// out[i] = cond[i] ? a[i] : b[i], all three broadcast through `layout`
extern "C" __global__ void where_op(const unsigned char* cond, const real_t* a, const real_t* b, real_t* out,
                                   const index_t* layout, index_t n, int ndim) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) {
    index_t offset[3];
    unravel<3>(i, layout, ndim, offset);
    out[i] = cond[offset[0]] ? a[offset[1]] : b[offset[2]];
  }
}

// out[i] = value
extern "C" __global__ void fill(real_t* out, index_t n, real_t value) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) out[i] = value;
}

// ------------------------------------------------------------------------------------------------
// Conversions (int64 truncates toward zero and bool is x != 0, as numpy's astype)
// ------------------------------------------------------------------------------------------------

template <typename in_t, typename out_t>
__device__ void cast_body(const in_t* in, out_t* out, index_t n) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) out[i] = (out_t)in[i];
}

// out[i] = (real_t) in[i]
extern "C" __global__ void cast_from_f32(const float* in, real_t* out, index_t n) { cast_body(in, out, n); }
extern "C" __global__ void cast_from_f64(const double* in, real_t* out, index_t n) { cast_body(in, out, n); }
extern "C" __global__ void cast_from_i64(const index_t* in, real_t* out, index_t n) { cast_body(in, out, n); }
extern "C" __global__ void cast_from_bool(const unsigned char* in, real_t* out, index_t n) {
  cast_body(in, out, n);
}

// out[i] = (int64) in[i]
extern "C" __global__ void cast_to_i64(const real_t* in, index_t* out, index_t n) { cast_body(in, out, n); }

// out[i] = in[i] != 0
extern "C" __global__ void cast_to_bool(const real_t* in, unsigned char* out, index_t n) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) out[i] = in[i] != real_t(0);
}

// ------------------------------------------------------------------------------------------------
// Reductions over one axis of x viewed as (outer, n, inner); keepdims is a reshape on the Python side
// ------------------------------------------------------------------------------------------------

// out[r] = sum_k x[r, k] (or max_k): one block per row (inner == 1), blockDim.x a power of two
extern "C" __global__ void reduce_rows(const real_t* x, real_t* out, index_t rows, index_t n, int op) {
  __shared__ real_t partial[BLOCK_THREADS];
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    real_t acc = reduce_identity(op);
    for (index_t k = threadIdx.x; k < n; k += blockDim.x) acc = reduce_combine(op, acc, x[r * n + k]);
    acc = block_reduce(op, acc, partial);
    if (threadIdx.x == 0) out[r] = acc;
  }
}

// out[o, i] = sum_k x[o, k, i] (or max_k): one thread per output, coalesced across i
extern "C" __global__ void reduce_cols(const real_t* x, real_t* out, index_t outer, index_t n, index_t inner,
                                       int op) {
  for (index_t j = grid_start(); j < outer * inner; j += grid_stride()) {
    const real_t* column = x + (j / inner) * n * inner + j % inner;
    real_t acc = reduce_identity(op);
    for (index_t k = 0; k < n; ++k) acc = reduce_combine(op, acc, column[k * inner]);
    out[j] = acc;
  }
}

// out[r] = argmax_k x[r, k] (the first maximum): one block per row, blockDim.x a power of two
extern "C" __global__ void argmax_rows(const real_t* x, index_t* out, index_t rows, index_t n) {
  __shared__ real_t best_value[BLOCK_THREADS];
  __shared__ index_t best_index[BLOCK_THREADS];
  const unsigned t = threadIdx.x;
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    real_t value = -INFINITY;
    index_t index = n;  // "none yet": loses every tie against a real index
    for (index_t k = t; k < n; k += blockDim.x) {
      if (argmax_beats(x[r * n + k], k, value, index)) {
        value = x[r * n + k];
        index = k;
      }
    }
    best_value[t] = value;
    best_index[t] = index;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (t < s && argmax_beats(best_value[t + s], best_index[t + s], best_value[t], best_index[t])) {
        best_value[t] = best_value[t + s];
        best_index[t] = best_index[t + s];
      }
      __syncthreads();
    }
    if (t == 0) out[r] = best_index[0];
    __syncthreads();
  }
}

// out[o, i] = argmax_k x[o, k, i]: one thread per output
extern "C" __global__ void argmax_cols(const real_t* x, index_t* out, index_t outer, index_t n, index_t inner) {
  for (index_t j = grid_start(); j < outer * inner; j += grid_stride()) {
    const real_t* column = x + (j / inner) * n * inner + j % inner;
    real_t value = -INFINITY;
    index_t index = n;
    for (index_t k = 0; k < n; ++k) {
      if (argmax_beats(column[k * inner], k, value, index)) {
        value = column[k * inner];
        index = k;
      }
    }
    out[j] = index;
  }
}

// out[r, j] = x[r, j] - max_k x[r, k] - log(sum_k exp(x[r, k] - max_k x[r, k])): one block per row
extern "C" __global__ void log_softmax_rows(const real_t* x, real_t* out, index_t rows, index_t n) {
  __shared__ real_t partial[BLOCK_THREADS];
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const real_t* row = x + r * n;
    real_t m = -INFINITY;
    for (index_t k = threadIdx.x; k < n; k += blockDim.x) m = nan_max(m, row[k]);
    m = block_reduce(REDUCE_MAX, m, partial);
    real_t s = 0;
    for (index_t k = threadIdx.x; k < n; k += blockDim.x) s += exp(row[k] - m);
    real_t log_s = log(block_reduce(REDUCE_SUM, s, partial));
    for (index_t k = threadIdx.x; k < n; k += blockDim.x) out[r * n + k] = (row[k] - m) - log_s;
  }
}

// ------------------------------------------------------------------------------------------------
// Indexing: the Python side turns any NumPy index into flat element positions
// ------------------------------------------------------------------------------------------------

// out[i] = x[position[i]]
extern "C" __global__ void gather(const real_t* x, const index_t* position, real_t* out, index_t n) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) out[i] = x[position[i]];
}

// out[position[i]] += values[i] (repeated positions add up: atomicAdd; double needs sm_60+)
extern "C" __global__ void scatter_add(const real_t* values, const index_t* position, real_t* out, index_t n) {
  for (index_t i = grid_start(); i < n; i += grid_stride()) atomicAdd(out + position[i], values[i]);
}

// ------------------------------------------------------------------------------------------------
// Matrix product: shared-memory tiles, and a register micro-tile per thread
// ------------------------------------------------------------------------------------------------

#ifndef MM_BM
#define MM_BM 128  // rows of C per block
#endif
#ifndef MM_BN
#define MM_BN 128  // columns of C per block
#endif
#ifndef MM_BK
#define MM_BK 8  // depth of one tile of A and B
#endif
#ifndef MM_TM
#define MM_TM 8  // rows of C per thread, a multiple of 4
#endif
#ifndef MM_TN
#define MM_TN 8  // columns of C per thread, a multiple of 4
#endif
#define MM_THREADS ((MM_BM / MM_TM) * (MM_BN / MM_TN))
#define MM_PAD 4  // keeps the transposed stores into As free of bank conflicts

static_assert(MM_TM % 4 == 0 && MM_TN % 4 == 0, "micro-tiles are read as vectors of 4");
static_assert(MM_BM * MM_BK % MM_THREADS == 0 && MM_BK * MM_BN % MM_THREADS == 0, "tiles split evenly");

// Four consecutive reals, read from shared memory in one vector load.
struct alignas(4 * sizeof(real_t)) real4 {
  real_t v[4];
};

// C = A @ B, row-major A[M, K], B[K, N], C[M, N]; any M, N, K (edges are padded with zeros); for a
// stack of `batch` such products (A[batch, M, K]…), block z computes products z, z + gridDim.z, ….
// Block (bx, by) computes C[by*BM : +BM, bx*BN : +BN]; each of its threads a TM x TN micro-tile whose
// rows are `g * ROW_STEP + ty*4 + v` (g < TM/4, v < 4; columns alike), so that a warp reads shared
// memory in whole vectors without bank conflicts.  For float, two blocks fit on one SM (<= 128
// registers), so one block's loads overlap the other's arithmetic.
extern "C" __global__ void __launch_bounds__(MM_THREADS, sizeof(real_t) == 4 ? 2 : 1)
    matmul(const real_t* __restrict__ A0, const real_t* __restrict__ B0, real_t* __restrict__ C0, int M, int N,
           int K, int batch) {
  constexpr int A_LOADS = MM_BM * MM_BK / MM_THREADS, B_LOADS = MM_BK * MM_BN / MM_THREADS;
  constexpr int ROW_STEP = 4 * (MM_BM / MM_TM), COL_STEP = 4 * (MM_BN / MM_TN);
  alignas(sizeof(real4)) __shared__ real_t As[MM_BK][MM_BM + MM_PAD];  // As[k][m] = A[m][k]
  alignas(sizeof(real4)) __shared__ real_t Bs[MM_BK][MM_BN];

  const int tid = threadIdx.x, tx = tid % (MM_BN / MM_TN), ty = tid / (MM_BN / MM_TN);
  const int row0 = blockIdx.y * MM_BM, col0 = blockIdx.x * MM_BN;
  for (int z = blockIdx.z; z < batch; z += gridDim.z) {  // (every thread of a block takes the same turns)
    const real_t* __restrict__ A = A0 + (size_t)z * M * K;
    const real_t* __restrict__ B = B0 + (size_t)z * K * N;
    real_t* __restrict__ C = C0 + (size_t)z * M * N;
    real_t acc[MM_TM][MM_TN] = {};

    for (int k0 = 0; k0 < K; k0 += MM_BK) {
      // One tile of A and one of B into shared memory (coalesced reads, zeros outside the matrices).
      for (int l = 0; l < A_LOADS; ++l) {
        int e = tid + l * MM_THREADS, m = row0 + e / MM_BK, k = k0 + e % MM_BK;
        As[e % MM_BK][e / MM_BK] = (m < M && k < K) ? A[(size_t)m * K + k] : real_t(0);
      }
      for (int l = 0; l < B_LOADS; ++l) {
        int e = tid + l * MM_THREADS, k = k0 + e / MM_BN, n = col0 + e % MM_BN;
        Bs[e / MM_BN][e % MM_BN] = (k < K && n < N) ? B[(size_t)k * N + n] : real_t(0);
      }
      __syncthreads();

      // acc += As[:, my rows]^T (outer product) Bs[:, my columns], one k at a time, from registers.
  #pragma unroll
      for (int k = 0; k < MM_BK; ++k) {
        real_t a[MM_TM], b[MM_TN];
  #pragma unroll
        for (int g = 0; g < MM_TM / 4; ++g) {
          real4 v = *reinterpret_cast<const real4*>(&As[k][g * ROW_STEP + ty * 4]);
          for (int i = 0; i < 4; ++i) a[g * 4 + i] = v.v[i];
        }
  #pragma unroll
        for (int g = 0; g < MM_TN / 4; ++g) {
          real4 v = *reinterpret_cast<const real4*>(&Bs[k][g * COL_STEP + tx * 4]);
          for (int j = 0; j < 4; ++j) b[g * 4 + j] = v.v[j];
        }
  #pragma unroll
        for (int i = 0; i < MM_TM; ++i)
  #pragma unroll
          for (int j = 0; j < MM_TN; ++j) acc[i][j] += a[i] * b[j];
      }
      __syncthreads();  // everyone is done with this tile before the next one overwrites it
    }

  #pragma unroll
    for (int i = 0; i < MM_TM; ++i) {
      int m = row0 + (i / 4) * ROW_STEP + ty * 4 + i % 4;
  #pragma unroll
      for (int j = 0; j < MM_TN; ++j) {
        int n = col0 + (j / 4) * COL_STEP + tx * 4 + j % 4;
        if (m < M && n < N) C[(size_t)m * N + n] = acc[i][j];
      }
    }
  }
}
