// PEV_HD marks functions that nvcc compiles for the host and the device alike, so that one
// formula serves the CPU, the GPU and the GPU's host twin; g++ sees plain functions. It lives in
// encoding/ because the contract's own facts (the layout table, encoding/layout.h) run in the
// kernels too, and core/ builds on encoding/, never the other way round.
#pragma once

#if defined(__CUDACC__)
#define PEV_HD __host__ __device__
#else
#define PEV_HD
#endif
