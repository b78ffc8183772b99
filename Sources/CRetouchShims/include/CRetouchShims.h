// SPDX-License-Identifier: Apache-2.0
// Thin C shims around the C libraries: every setjmp/longjmp and every macro Swift cannot import
// lives here. Each header below covers one library.
#pragma once
#include "rt_jpeg.h"
#include "rt_lcms.h"
#include "rt_png.h"
