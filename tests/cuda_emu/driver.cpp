// Exposes every kernel of kernels.cu to Python (ctypes) as `launch_<name>`, with cuLaunchKernel's
// calling convention: grid and block sizes, then `params`, an array of pointers to each argument.
//
// Build (tests/cuda_emu/emulator.py does it; BUILD holds the rendered source and expose.inc):
//   g++ -std=c++20 -O1 -shared -fPIC -pthread -fno-strict-aliasing -I tests/cuda_emu -I BUILD \
//       -DMG2_KERNELS_FILE='"kernels_float32.cu"' -DMG2_EXPOSE_FILE='"expose.inc"' driver.cpp -o lib.so
// where kernels_<dtype>.cu is kernel_source.render(dtype) and expose.inc holds one EXPOSE(name)
// line per kernel (written from kernel_source.kernel_names(), so none can be forgotten).
#include <cstddef>
#include <type_traits>
#include <utility>

#include "cuda_emu.h"
#include MG2_KERNELS_FILE

namespace {

// Call kernel(*params[0], *params[1], ...), each parameter read as the type the kernel declares.
template <typename... Args, std::size_t... I>
void call_with_params(void (*kernel)(Args...), void** params, std::index_sequence<I...>) {
  kernel(*static_cast<std::remove_cv_t<Args>*>(params[I])...);
}

template <typename... Args>
void launch(void (*kernel)(Args...), dim3 grid, dim3 block, void** params) {
  cuda_emu::run_grid(grid, block, [&] { call_with_params(kernel, params, std::index_sequence_for<Args...>{}); });
}

}  // namespace

#define EXPOSE(name)                                                                                       \
  extern "C" void launch_##name(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,          \
                                unsigned bz, void** params) {                                             \
    launch(name, dim3{gx, gy, gz}, dim3{bx, by, bz}, params);                                              \
  }
#include MG2_EXPOSE_FILE

// A deliberate out-of-bounds write (out[n] = 1), so the tests can check that AddressSanitizer,
// when it is on, really catches a kernel that writes past an array.
extern "C" void probe_out_of_bounds(float* out, long long n) { out[n] = 1.0f; }
