// A small CUDA emulator: enough of CUDA C++ to compile micrograd2's kernels.cu, unchanged, with g++
// and run them on the CPU.
//
// * Each CUDA thread of a block is one std::thread; blocks run one after another.
// * threadIdx/blockIdx/blockDim/gridDim are thread_local, set when the thread starts.
// * `__shared__` becomes `static`: the block's threads share it (as on a GPU), and since blocks run
//   one at a time, the next block simply reuses it.
// * __syncthreads() waits on a std::barrier of the block's threads.  A thread that returns drops out
//   of the barrier, as exited threads do on a GPU.
// * atomicAdd is an add under a mutex.  Math comes from <cmath> (float overloads, as CUDA's).
//
// Nothing models warps, memory ordering or races: a real GPU run is still needed.
#pragma once

#include <barrier>
#include <cmath>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

using std::exp;
using std::fabs;
using std::log;
using std::pow;
using std::sqrt;
using std::tanh;

namespace cuda_emu {

inline std::barrier<>* block_barrier = nullptr;  // the running block's barrier
inline std::mutex atomic_mutex;

// Run `body` as a kernel: every block in turn, each with one std::thread per CUDA thread.
inline void run_grid(dim3 grid, dim3 block, const std::function<void()>& body) {
  const unsigned threads = block.x * block.y * block.z;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        std::barrier<> barrier(threads);
        block_barrier = &barrier;
        std::vector<std::thread> pool;
        pool.reserve(threads);
        for (unsigned t = 0; t < threads; ++t) {
          pool.emplace_back([&, t] {
            threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
            blockIdx = {bx, by, bz};
            blockDim = block;
            gridDim = grid;
            body();
            barrier.arrive_and_drop();
          });
        }
        for (auto& thread : pool) thread.join();
      }
  block_barrier = nullptr;
}

}  // namespace cuda_emu

inline void __syncthreads() { cuda_emu::block_barrier->arrive_and_wait(); }

template <typename T>
inline T atomicAdd(T* address, T value) {
  std::lock_guard<std::mutex> lock(cuda_emu::atomic_mutex);
  T old = *address;
  *address = old + value;
  return old;
}
