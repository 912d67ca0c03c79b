// NCCL_DEBUG output of the NCCL stand-in, in NCCL 2.28's line format (NCCL's src/debug.cc): INFO lines
// `host:pid:tid [cudaDev] NCCL INFO msg`, WARN lines after an empty line with the default 2.26+ timestamp
// prefix `[%F %T] ` and `file:line`, to NCCL_DEBUG_FILE (%h = host cut at the first '.', %p = pid) or stdout.
#pragma once

#include <string>

namespace standin::log {

enum Subsys : unsigned { kInit = 1, kNet = 2, kGraph = 4, kEnv = 8, kBootstrap = 16, kP2p = 32 };

/// One INFO line when NCCL_DEBUG is INFO or TRACE and one of `subsys` is in NCCL_DEBUG_SUBSYS (default
/// INIT,BOOTSTRAP,ENV as NCCL 2.23+).
void info(unsigned subsys, int device, const std::string& msg);
/// One WARN line (shown from NCCL_DEBUG=WARN on).
void warn(const char* file, int line, int device, const std::string& msg);

/// The host name as NCCL prints it (cut at the first '.').
std::string host();

}  // namespace standin::log
