#pragma once
// Moved to emu/worker/progress_block.hpp (the worker owns the file's format; emu/worker must not
// include emu/launch). Kept only until worker_set.hpp includes the new path.
#include "emu/worker/progress_block.hpp"
