#include "nccl_standin_log.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <sstream>

namespace standin::log {
namespace {

struct Sink {
  int level = 0;  // 0 none, 1 WARN, 2 INFO
  unsigned mask = kInit | kBootstrap | kEnv;
  std::FILE* out = nullptr;
};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

unsigned subsys_bit(const std::string& name) {
  if (name == "INIT") return kInit;
  if (name == "NET") return kNet;
  if (name == "GRAPH") return kGraph;
  if (name == "ENV") return kEnv;
  if (name == "BOOTSTRAP") return kBootstrap;
  if (name == "P2P") return kP2p;
  if (name == "ALL") return ~0u;
  return 0;
}

Sink& sink() {
  static std::once_flag once;
  static Sink s;
  std::call_once(once, [] {
    const char* level = std::getenv("NCCL_DEBUG");
    const std::string l = level != nullptr ? upper(level) : "";
    s.level = l == "INFO" || l == "TRACE" ? 2 : l == "WARN" ? 1 : 0;
    if (const char* sub = std::getenv("NCCL_DEBUG_SUBSYS"); sub != nullptr && *sub != '\0') {
      std::string list = upper(sub);
      const bool invert = list[0] == '^';
      if (invert) list.erase(0, 1);
      unsigned mask = 0;
      std::stringstream ss(list);
      for (std::string item; std::getline(ss, item, ',');) mask |= subsys_bit(item);
      s.mask = invert ? ~mask : mask;
    }
    s.out = stdout;
    if (const char* file = std::getenv("NCCL_DEBUG_FILE"); file != nullptr && *file != '\0' && s.level > 0) {
      std::string path;
      for (const char* p = file; *p != '\0'; ++p) {
        if (*p == '%' && p[1] == 'h') {
          path += host();
          ++p;
        } else if (*p == '%' && p[1] == 'p') {
          path += std::to_string(::getpid());
          ++p;
        } else {
          path += *p;
        }
      }
      if (std::FILE* f = std::fopen(path.c_str(), "w"); f != nullptr) s.out = f;
    }
  });
  return s;
}

std::mutex g_write_mu;

std::string prefix(int device) {
  return host() + ":" + std::to_string(::getpid()) + ":" + std::to_string(::syscall(SYS_gettid)) + " [" +
         std::to_string(device) + "] ";
}

}  // namespace

std::string host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  std::string h(name);
  return h.substr(0, h.find('.'));
}

void info(unsigned subsys, int device, const std::string& msg) {
  Sink& s = sink();
  if (s.level < 2 || (s.mask & subsys) == 0) return;
  std::lock_guard<std::mutex> lock(g_write_mu);
  std::fprintf(s.out, "%sNCCL INFO %s\n", prefix(device).c_str(), msg.c_str());
  std::fflush(s.out);
}

void warn(const char* file, int line, int device, const std::string& msg) {
  Sink& s = sink();
  if (s.level < 1) return;
  char stamp[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "[%F %T] ", &tm);
  std::lock_guard<std::mutex> lock(g_write_mu);
  std::fprintf(s.out, "\n%s%s%s:%d NCCL WARN %s\n", stamp, prefix(device).c_str(), file, line, msg.c_str());
  std::fflush(s.out);
}

}  // namespace standin::log
