#!/usr/bin/env bash
# The GPU check, for an H200 machine without network (Python 3.12, torch preinstalled, no pycuda):
#   1. installs pycuda and its dependencies from the wheels in .whl/ (see shared/tools/build-pycuda-wheels.sh);
#   2. runs the GPU tests of the CUDA backend (every backend method against NumPy, memory release);
#   3. runs the matmul benchmark (TFLOP/s against the FP32 peak and torch.matmul with TF32 off);
#   4. prints a short table.  Sized for under 5 minutes (each step has its own time limit).
# Usage, from anywhere:  bash benchmarks/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
began=$SECONDS

python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl \
  && export PYTHONPATH=/tmp/site:$PWD \
  || { echo "could not install .whl/*.whl: build them with shared/tools/build-pycuda-wheels.sh"; exit 1; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
status=$(python3 -c 'from micrograd2.backends.cuda import cuda_status; print(cuda_status()[1])' 2>&1 | tail -n 1)
echo "cuda_status: $status"

echo "== GPU tests"
if python3 -c 'import pytest' 2>/dev/null; then
  timeout 180 python3 -m pytest -m gpu tests/test_cuda_backend.py -q -p no:cacheprovider 2>&1 | tail -n 25
  tests_rc=${PIPESTATUS[0]}
  tests=$([ "$tests_rc" = 0 ] && echo "passed" || echo "FAILED (exit $tests_rc)")
else
  tests="not run: pytest is missing (add its wheels to .whl/: pytest pluggy iniconfig packaging)"
fi

echo "== benchmark"
bench_log=$(mktemp)
timeout 150 python3 benchmarks/bench_cuda.py 2>&1 | tee "$bench_log"
bench_rc=${PIPESTATUS[0]}

echo
echo "================ summary ================"
printf '%-14s %s\n' "GPU tests" "$tests"
printf '%-14s %s\n' "benchmark" "$([ "$bench_rc" = 0 ] && echo ok || echo "FAILED (exit $bench_rc)")"
grep -E '^(case|matmul) ' "$bench_log"
printf '%-14s %s s\n' "wall time" "$((SECONDS - began))"
rm -f "$bench_log"
[ "$bench_rc" = 0 ] && [ "$tests" = passed ]
