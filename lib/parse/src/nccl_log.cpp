// NCCL debug-log reader: envelope, wrappers, line accounting, streaming (see nccl_log.hpp). The message
// catalogue lives in nccl_log_messages.cpp.
#include "fabcheck/parse/nccl_log.hpp"

#include <algorithm>
#include <array>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/enum_table.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/input_limits.hpp"
#include "fabcheck/core/read_bounded.hpp"
#include "fabcheck/core/redact.hpp"
#include "nccl_log_messages.hpp"
#include "nccl_log_util.hpp"

namespace fabcheck::parse {

using namespace detail;

NcclVersionCode nccl_version_code(std::string_view text) {
  text = core::trim_blanks(text);
  std::size_t p = 0;
  auto major = read_uint(text, p);
  if (!major || p >= text.size() || text[p] != '.') return 0;
  ++p;
  auto minor = read_uint(text, p);
  if (!minor) return 0;
  long long patch = 0;
  if (p < text.size() && text[p] == '.') {
    ++p;
    auto pt = read_uint(text, p);
    if (!pt) return 0;
    patch = *pt;
  }
  if (*major > 99 || *minor > 99 || patch > 99) return 0;
  return static_cast<int>(*major * 10000 + *minor * 100 + patch);
}

std::string_view name(NcclTransportKind k) {
  static constexpr std::array<std::string_view, 4> kNames = {"p2p", "shm", "net", "collnet"};
  return core::enum_lookup(kNames, k, kNames[0]);
}

std::string_view name(NcclIssueKind k) {
  static constexpr std::array<std::string_view, 9> kNames = {
      "warn",   "ibv_call",   "completion",        "socket",     "proxy",
      "plugin", "libibverbs", "network_not_found", "error_trace"};
  return core::enum_lookup(kNames, k, kNames[0]);
}

std::string issue_signature(const NcclIssue& is) {
  std::string s = std::string(name(is.kind)) + "|" + std::to_string(is.status) + "|" + is.ibv_function + "|" +
                  is.error_text;
  if (is.kind == NcclIssueKind::kWarn || is.kind == NcclIssueKind::kSocket ||
      is.kind == NcclIssueKind::kPlugin || is.kind == NcclIssueKind::kProxy) {
    s += "|";
    for (char c : is.message.substr(0, 48))
      if (!is_digit(c)) s += c;
  }
  return s;
}

std::string_view ibv_wc_status_name(int status) {
  static constexpr const char* kNames[] = {"SUCCESS",
                                           "LOC_LEN_ERR",
                                           "LOC_QP_OP_ERR",
                                           "LOC_EEC_OP_ERR",
                                           "LOC_PROT_ERR",
                                           "WR_FLUSH_ERR",
                                           "MW_BIND_ERR",
                                           "BAD_RESP_ERR",
                                           "LOC_ACCESS_ERR",
                                           "REM_INV_REQ_ERR",
                                           "REM_ACCESS_ERR",
                                           "REM_OP_ERR",
                                           "RETRY_EXC_ERR",
                                           "RNR_RETRY_EXC_ERR",
                                           "LOC_RDD_VIOL_ERR",
                                           "REM_INV_RD_REQ_ERR",
                                           "REM_ABORT_ERR",
                                           "INV_EECN_ERR",
                                           "INV_EEC_STATE_ERR",
                                           "FATAL_ERR",
                                           "RESP_TIMEOUT_ERR",
                                           "GENERAL_ERR",
                                           "TM_ERR",
                                           "TM_RNDV_INCOMPLETE"};
  if (status < 0 || status >= static_cast<int>(std::size(kNames))) return {};
  return kNames[status];
}

namespace {

enum class Level { kInfo, kWarn, kTrace, kCall };

struct Envelope {
  bool found = false;
  bool old_form = false;  // 2.0 - 2.2: level word without `NCCL`
  Level level = Level::kInfo;
  std::string_view host;  // empty: prefix removed
  long long pid = 0;
  std::optional<int> dev;
  std::optional<int> tag_rank;
  std::string_view msg;
};

// `[J,R]<stdout>:` / `<stderr>:` wrapper anywhere at the start of `pre`: returns R.
std::optional<int> tag_output_rank(std::string_view pre) {
  std::size_t lb = pre.find('[');
  while (lb != std::string_view::npos && lb < 64) {
    std::size_t p = lb + 1;
    auto job = read_uint(pre, p);
    if (job && p < pre.size() && pre[p] == ',') {
      ++p;
      auto rank = read_uint(pre, p);
      if (rank && p < pre.size() && pre[p] == ']') {
        std::string_view rest = pre.substr(p + 1);
        if (starts_with(rest, "<stdout>") || starts_with(rest, "<stderr>")) return clamp_int(*rank);
      }
    }
    lb = pre.find('[', lb + 1);
  }
  return std::nullopt;
}

// True for a lone wrapper (`[1,23]<stdout>:`, `[1,23]<stderr>:`) with nothing after it: a WARN lead-in.
bool is_bare_wrapper(std::string_view t) {
  if (!ends_with(t, "<stdout>:") && !ends_with(t, "<stderr>:")) return false;
  std::string_view head = t.substr(0, t.size() - 9);
  if (head.size() < 5 || head.front() != '[' || head.back() != ']') return false;
  for (char c : head.substr(1, head.size() - 2))
    if (!is_digit(c) && c != ',') return false;
  return true;
}

// Finds `NCCL INFO|WARN|TRACE|CALL` starting a word.
bool find_marker(std::string_view l, std::size_t& pos, Level& level, std::size_t& msg_at) {
  std::size_t at = l.find("NCCL ");
  while (at != std::string_view::npos) {
    if (at == 0 || is_space(l[at - 1]) || l[at - 1] == ']' || l[at - 1] == ':') {
      std::string_view rest = l.substr(at + 5);
      struct {
        std::string_view word;
        Level lv;
      } const kinds[] = {
          {"INFO", Level::kInfo}, {"WARN", Level::kWarn}, {"TRACE", Level::kTrace}, {"CALL", Level::kCall}};
      for (const auto& k : kinds) {
        if (starts_with(rest, k.word) && (rest.size() == k.word.size() || is_space(rest[k.word.size()]))) {
          pos = at;
          level = k.lv;
          msg_at = std::min(l.size(), at + 5 + k.word.size() + 1);
          return true;
        }
      }
    }
    at = l.find("NCCL ", at + 1);
  }
  return false;
}

// Parses `host:pid:tid` that ends `s` (after trimming). Host = chars other than whitespace, ':', '[' and ']'.
bool parse_host_pid_tid(std::string_view s, std::string_view& host, long long& pid) {
  s = core::trim_blanks(s);
  std::size_t e = s.size();
  std::size_t p = e;
  while (p > 0 && is_digit(s[p - 1])) --p;  // tid
  if (p == e || p == 0 || s[p - 1] != ':') return false;
  std::size_t pid_end = p - 1;
  std::size_t q = pid_end;
  while (q > 0 && is_digit(s[q - 1])) --q;  // pid
  if (q == pid_end || q == 0 || s[q - 1] != ':') return false;
  std::size_t host_end = q - 1;
  std::size_t h = host_end;
  while (h > 0) {
    char c = s[h - 1];
    if (is_space(c) || c == ':' || c == '[' || c == ']' || c == '"' || c == '\'') break;
    --h;
  }
  // An empty host field (`:1701:1740 [0] NCCL INFO`, a container without a hostname) is allowed at the start.
  if (h == host_end && h != 0) return false;
  host = s.substr(h, host_end - h);
  std::size_t pp = q;
  pid = read_uint(s, pp).value_or(0);
  return true;
}

// NCCL 2.0 - 2.2 printed the level without the `NCCL` word: `host:pid:tid [dev] INFO msg`,
// `host:pid:tid [dev] file:line WARN msg` (horovod/horovod#57, #147, #666; NVIDIA/nccl-tests#15). Accepted
// only with the full `host:pid:tid [dev]` prefix before the level word, so prose with "INFO" stays foreign.
bool find_old_marker(std::string_view l, std::size_t& pos, Level& level, std::size_t& msg_at) {
  for (auto [word, lv] :
       {std::pair<std::string_view, Level>{" INFO ", Level::kInfo}, {" WARN ", Level::kWarn}}) {
    std::size_t at = l.find(word);
    if (at == std::string_view::npos || at > 256) continue;
    std::string_view pre = core::trim_blanks(l.substr(0, at));
    if (lv == Level::kWarn) {  // drop `file:line`
      std::size_t sp = pre.rfind(' ');
      if (sp == std::string_view::npos) continue;
      std::string_view loc = pre.substr(sp + 1);
      std::size_t colon = loc.rfind(':');
      if (colon == std::string_view::npos || colon + 1 >= loc.size()) continue;
      pre = core::trim_blanks(pre.substr(0, sp));
    }
    if (pre.empty() || pre.back() != ']') continue;
    std::size_t open = pre.rfind('[');
    if (open == std::string_view::npos || open + 2 > pre.size()) continue;
    bool digits = open + 1 < pre.size() - 1;
    for (std::size_t i = open + 1; i + 1 < pre.size(); ++i) digits = digits && is_digit(pre[i]);
    std::string_view host;
    long long pid = 0;
    if (!digits || !parse_host_pid_tid(pre.substr(0, open), host, pid)) continue;
    pos = at + 1;
    level = lv;
    msg_at = std::min(l.size(), at + word.size());
    return true;
  }
  return false;
}

Envelope parse_envelope(std::string_view l) {
  Envelope env;
  // NCCL's own lines never start with '#': a comment quoting one (`# previous run: node01:... NCCL WARN ...`)
  // is not a log line.
  if (!l.empty() && l.front() == '#') return env;
  std::size_t pos = 0, msg_at = 0;
  Level level{};
  bool old_form = false;
  if (!find_marker(l, pos, level, msg_at)) {
    if (!find_old_marker(l, pos, level, msg_at)) return env;
    old_form = true;
  }
  env.old_form = old_form;
  env.found = true;
  env.level = level;
  env.msg = l.substr(msg_at);
  std::string_view pre = core::trim_blanks(l.substr(0, pos));
  env.tag_rank = tag_output_rank(pre);
  // Optional `(func)` (2.30 WARN) at the end.
  if (!pre.empty() && pre.back() == ')') {
    std::size_t open = pre.rfind(" (");
    if (open != std::string_view::npos) pre = core::trim_blanks(pre.substr(0, open));
  }
  // Locate the `[dev]` token: the last `[digits]` followed by end or whitespace.
  std::size_t dev_open = std::string_view::npos, dev_close = 0;
  for (std::size_t r = pre.size(); r > 0; --r) {
    if (pre[r - 1] != ']') continue;
    std::size_t close = r - 1;
    std::size_t d = close;
    while (d > 0 && is_digit(pre[d - 1])) --d;
    if (d == close || d == 0 || pre[d - 1] != '[') continue;
    if (close + 1 < pre.size() && !is_space(pre[close + 1])) continue;
    dev_open = d - 1;
    dev_close = close;
    break;
  }
  std::string_view before = pre;
  if (dev_open != std::string_view::npos) {
    std::size_t p = dev_open + 1;
    if (auto v = read_uint(pre, p)) env.dev = clamp_int(*v);
    before = pre.substr(0, dev_open);
    (void)dev_close;
  }
  std::string_view host;
  long long pid = 0;
  if (parse_host_pid_tid(before, host, pid)) {
    env.host = host;
    env.pid = pid;
    // Text quoted before the host (`echo "node02:1:2 [0] NCCL WARN ..."`) is a command, not NCCL's output.
    std::string_view lead = before.substr(0, static_cast<std::size_t>(host.data() - before.data()));
    if (lead.find('"') != std::string_view::npos || lead.find('\'') != std::string_view::npos)
      return Envelope{};
  }
  return env;
}

// Binary: any NUL, or more than 1/16 control bytes (tabs excepted).
bool looks_binary(std::string_view l) {
  std::size_t ctrl = 0;
  for (char ch : l) {
    auto c = static_cast<unsigned char>(ch);
    if (c == 0) return true;
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) ++ctrl;
  }
  return ctrl >= 4 && ctrl * 16 > l.size();
}

// `#  Rank  0 Group  0 Pid 120890 on node01 device  0 [0x87] A100` (nccl-tests header).
bool parse_tests_rank(std::string_view t, NcclTestsRank& out) {
  if (t.empty() || t.front() != '#') return false;
  t.remove_prefix(1);
  t = core::trim_blanks(t);
  if (!starts_with(t, "Rank ")) return false;
  std::size_t p = 5;
  while (p < t.size() && is_space(t[p])) ++p;
  auto rank = read_uint(t, p);
  if (!rank) return false;
  auto pid = int_after(t, "Pid ");
  std::size_t on = t.find(" on ");
  std::size_t dv = t.find(" device ");
  if (!pid || on == std::string_view::npos || dv == std::string_view::npos || dv < on) return false;
  out.rank = clamp_int(*rank);
  out.pid = *pid;
  out.host = std::string(core::trim_blanks(t.substr(on + 4, dv - on - 4)));
  out.device = clamp_int(int_after(t, "device ").value_or(-1));
  return !out.host.empty();
}

// True when `t` is a command line: a shell prompt (`user@host:~$ `, `$ `, `root@host:/# `) or a launcher /
// shell word first (`mpirun`, `srun`, `export`, `env`, `NCCL_X=1 cmd`, ...). Comments (`# ...`), prose and
// application output are not: an assignment quoted there says nothing about the job's environment.
bool is_command_line(std::string_view t) {
  t = core::trim_blanks(t);
  if (t.empty() || t.front() == '#') return false;
  std::size_t prompt = t.find("$ ");
  if (prompt == std::string_view::npos && t.find('@') != std::string_view::npos) prompt = t.find("# ");
  if (prompt != std::string_view::npos && prompt < 96) {
    std::string_view head = t.substr(0, prompt);
    bool prompt_like = head.empty() || head.find('@') != std::string_view::npos || head.back() == ']' ||
                       head.back() == ')' || head.back() == '~' || head.back() == '/';
    if (prompt_like) t = core::trim_blanks(t.substr(prompt + 2));
  }
  std::string_view w = first_token(t);
  if (starts_with(w, "NCCL_") && w.find('=') != std::string_view::npos) return true;
  for (std::string_view cmd :
       {"mpirun",  "mpiexec",   "srun",        "export",    "env",     "torchrun", "python",
        "python3", "deepspeed", "horovodrun",  "docker",    "kubectl", "sbatch",   "salloc",
        "bash",    "sh",        "singularity", "apptainer", "enroot",  "./"})
    if (w == cmd || (cmd == "./" && starts_with(w, cmd)) || ends_with(w, "/" + std::string(cmd))) return true;
  return false;
}

// NCCL_X=Y assignments in a command line (shell prompts, `mpirun -x`, `export`, `env`).
void scan_command_env(std::string_view t, std::map<std::string, std::string>& env) {
  if (!is_command_line(t)) return;
  std::size_t at = t.find("NCCL_");
  while (at != std::string_view::npos && env.size() < 256) {
    bool word_start =
        at == 0 || is_space(t[at - 1]) || t[at - 1] == '"' || t[at - 1] == '\'' || t[at - 1] == ';';
    std::size_t p = at + 5;
    while (p < t.size() && (std::isupper(static_cast<unsigned char>(t[p])) || is_digit(t[p]) || t[p] == '_'))
      ++p;
    if (word_start && p < t.size() && t[p] == '=' && p > at + 5) {
      std::string key(t.substr(at, p - at));
      std::size_t v = p + 1, e = v;
      while (e < t.size() && !is_space(t[e]) && t[e] != ';') ++e;
      std::string value(t.substr(v, e - v));
      while (!value.empty() && (value.front() == '"' || value.front() == '\'')) value.erase(value.begin());
      while (!value.empty() && (value.back() == '"' || value.back() == '\'')) value.pop_back();
      if (value.size() <= 256) env[key] = core::redact_value(key, value);
      at = t.find("NCCL_", e);
    } else {
      at = t.find("NCCL_", at + 1);
    }
  }
}

}  // namespace

NcclLogParser::NcclLogParser(std::string source) {
  log_.source = std::move(source);
}

void NcclLogParser::feed(std::string_view chunk) {
  log_.stats.bytes += chunk.size();
  while (!chunk.empty()) {
    std::size_t nl = chunk.find('\n');
    std::string_view piece = nl == std::string_view::npos ? chunk : chunk.substr(0, nl);
    if (!overlong_) {
      if (partial_.size() + piece.size() > kMaxLineBytes) {
        overlong_ = true;
        partial_.clear();
        partial_.shrink_to_fit();
      } else {
        partial_.append(piece);
      }
    }
    if (nl == std::string_view::npos) break;
    // A complete line.
    ++log_.stats.lines;
    if (overlong_) {
      ++log_.stats.skipped_overlong;
      overlong_ = false;
    } else {
      line(partial_);
    }
    partial_.clear();
    chunk.remove_prefix(nl + 1);
  }
}

void NcclLogParser::flush_pending_version(std::optional<std::size_t> after) {
  if (!pending_version_) return;
  PendingVersion pv = std::move(*pending_version_);
  pending_version_.reset();
  std::optional<std::size_t> owner;
  if (pv.tag_rank) {
    // `[1,0]<stdout>:NCCL version ...` under mpirun --tag-output: the process of that MPI rank.
    for (std::size_t i = 0; i < log_.processes.size(); ++i)
      if (log_.processes[i].tag_rank == pv.tag_rank) {
        owner = i;
        break;
      }
  }
  if (!owner && pv.before && after && log_.processes[*pv.before].host == log_.processes[*after].host &&
      !log_.processes[*after].host.empty())
    owner = log_.processes[*after].version.empty() ? *after : *pv.before;
  if (owner && log_.processes[*owner].version.empty()) {
    log_.processes[*owner].version = pv.version;
    return;
  }
  if (log_.bare_versions.size() < 16) log_.bare_versions.push_back(std::move(pv.version));
}

NcclLog NcclLogParser::finish() {
  if (overlong_ || !partial_.empty()) {
    log_.stats.truncated = true;
    ++log_.stats.lines;
    if (overlong_) {
      ++log_.stats.skipped_overlong;
    } else {
      line(partial_);
    }
    partial_.clear();
    overlong_ = false;
  }
  flush_pending_version(std::nullopt);
  drop_phantom_process();
  for (auto& p : log_.processes) {
    std::sort(p.cuda_devs.begin(), p.cuda_devs.end());
    p.cuda_devs.erase(std::unique(p.cuda_devs.begin(), p.cuda_devs.end()), p.cuda_devs.end());
    std::sort(p.ranks.begin(), p.ranks.end());
    p.ranks.erase(std::unique(p.ranks.begin(), p.ranks.end()), p.ranks.end());
  }
  return std::move(log_);
}

void NcclLogParser::drop_phantom_process() {
  // Prefix-less lines that only echo errors (PyTorch's `Last error: Call to ibv_modify_qp failed ...`, an
  // application's own message) beside prefixed NCCL lines are not a host of their own:
  // they repeat what the prefixed processes logged. A prefix-less group with any other fact stays (logs
  // whose prefix was cut, fixture 12).
  auto it = std::find_if(log_.processes.begin(), log_.processes.end(),
                         [](const NcclProcessLog& p) { return p.host.empty() && p.pid == 0; });
  if (it == log_.processes.end()) return;
  bool named = std::any_of(log_.processes.begin(), log_.processes.end(),
                           [](const NcclProcessLog& p) { return !p.host.empty(); });
  const NcclProcessLog& p = *it;
  bool only_issues = p.network.empty() && p.ib_devices.empty() && p.connections_total == 0 &&
                     p.socket_ifaces.empty() && p.bootstrap_ifaces.empty() && p.env.empty() &&
                     !p.ib_no_device && !p.libibverbs_missing && p.gdr_hca.empty() && p.gdr_pairs.empty() &&
                     p.version.empty() && p.net_plugin.empty() && !p.nranks && !p.nnodes && !p.ofi;
  if (!named || !only_issues || p.message_only_lines != p.lines) return;
  // The same number leaves one counter and joins the other (a glued line's second half adds to p.lines but
  // not to the counters, so p.lines can exceed what was counted).
  const std::size_t n = std::min(log_.stats.message_only_lines, p.message_only_lines);
  log_.stats.message_only_lines -= n;
  log_.stats.foreign_lines += n;
  log_.processes.erase(it);
}

// Two `mpirun --tag-output` streams glued into one line (`...INFO Connected all trees[1,1]<stderr>:node02:...
// NCCL WARN ...`): the position of the second wrapper, or npos.
std::size_t glued_wrapper(std::string_view t) {
  for (std::string_view w : {std::string_view("]<stdout>:"), std::string_view("]<stderr>:")}) {
    std::size_t at = t.find(w, 1);
    while (at != std::string_view::npos) {
      std::size_t lb = t.rfind('[', at);
      if (lb != std::string_view::npos && lb > 0 && at - lb < 24 && tag_output_rank(t.substr(lb))) return lb;
      at = t.find(w, at + 1);
    }
  }
  return std::string_view::npos;
}

void NcclLogParser::line(std::string_view raw) {
  // A glued line is read as its two lines; the line counters count the physical line once.
  std::size_t glue = looks_binary(raw) ? std::string_view::npos : glued_wrapper(core::trim_blanks(raw));
  if (glue != std::string_view::npos) {
    std::string_view t = core::trim_blanks(raw);
    line_one(t.substr(0, glue));
    const NcclLogStats saved = log_.stats;
    line(t.substr(glue));
    log_.stats = saved;
    return;
  }
  line_one(raw);
}

void NcclLogParser::line_one(std::string_view raw) {
  const std::size_t lineno = log_.stats.lines;
  auto& st = log_.stats;
  if (looks_binary(raw)) {
    ++st.skipped_binary;
    return;
  }
  std::string_view t = core::trim_blanks(raw);
  if (t.empty() || is_bare_wrapper(t)) {
    ++st.blank_lines;
    return;
  }

  auto process_for = [&](std::string_view host, long long pid) -> NcclProcessLog* {
    std::string key = std::string(host) + ":" + std::to_string(pid);
    auto it = index_.find(key);
    if (it != index_.end()) return &log_.processes[it->second];
    if (log_.processes.size() >= kMaxProcesses) return nullptr;
    index_.emplace(key, log_.processes.size());
    NcclProcessLog p;
    p.host = std::string(host);
    p.pid = pid;
    p.first_line = lineno;
    log_.processes.push_back(std::move(p));
    return &log_.processes.back();
  };

  Envelope env = parse_envelope(t);
  if (env.found) {
    NcclProcessLog* proc = process_for(env.host, env.pid);
    if (!proc) {
      ++st.foreign_lines;
      return;
    }
    last_error_pending_ = false;
    const std::size_t index = static_cast<std::size_t>(proc - log_.processes.data());
    if (pending_version_) flush_pending_version(index);
    last_process_ = index;
    ++st.nccl_lines;
    ++proc->lines;
    if (env.dev && proc->cuda_devs.size() < 1024 &&
        std::find(proc->cuda_devs.begin(), proc->cuda_devs.end(), *env.dev) == proc->cuda_devs.end())
      proc->cuda_devs.push_back(*env.dev);
    if (env.tag_rank && !proc->tag_rank) proc->tag_rank = env.tag_rank;
    if (env.level == Level::kTrace || env.level == Level::kCall) return;
    std::string_view msg = core::trim_blanks(env.msg);
    if (starts_with(msg, "NCCL version ")) {
      proc->version = std::string(first_token(msg.substr(13)));
      return;
    }
    bool known = handle_message(*proc, msg, env.level == Level::kWarn, lineno, false);
    if (!known && env.level != Level::kWarn) ++st.unparsed;
    return;
  }

  // No envelope: bare version line, nccl-tests header, command lines, or a prefix-less NCCL message.
  std::string_view body = t;
  if (last_error_pending_) {
    // The line after PyTorch's `Last error:` repeats NCCL's last warning: an application echo, no host.
    last_error_pending_ = false;
    std::string_view echo = t;
    if (!echo.empty() && echo.front() == '[') {
      std::size_t close = echo.find("]:");
      if (close != std::string_view::npos && close < 32) echo = core::trim_blanks(echo.substr(close + 2));
    }
    ++st.foreign_lines;
    std::string text = "Last error: " + std::string(echo);
    note_app_error(text, lineno);
    return;
  }
  if (auto r = tag_output_rank(t)) {
    std::size_t colon = t.find(">:");
    if (colon != std::string_view::npos) body = core::trim_blanks(t.substr(colon + 2));
    (void)r;
  }
  if (starts_with(body, "NCCL version ")) {
    ++st.message_only_lines;
    flush_pending_version(std::nullopt);
    pending_version_ =
        PendingVersion{std::string(first_token(body.substr(13))), last_process_, tag_output_rank(t)};
    return;
  }
  NcclTestsRank tr;
  if (parse_tests_rank(body, tr)) {
    ++st.foreign_lines;
    if (log_.tests_ranks.size() < 65536) log_.tests_ranks.push_back(std::move(tr));
    return;
  }
  if (body.front() != '#') {
    NcclProcessLog probe;  // recognise first, then commit: foreign text must not create processes or facts
    if (handle_message(probe, body, false, lineno, true)) {
      if (NcclProcessLog* proc = process_for("", 0)) {
        handle_message(*proc, body, false, lineno, true);
        ++proc->lines;
        ++proc->message_only_lines;
        ++st.message_only_lines;
        return;
      }
    }
  }
  ++st.foreign_lines;
  scan_command_env(body, log_.command_env);
  note_app_error(body, lineno);
}

void NcclLogParser::note_app_error(std::string_view body, std::size_t lineno) {
  // Application-level summaries of an NCCL failure (ncclGetErrorString texts, nccl-tests'
  // `Test NCCL failure`), and PyTorch's `Last error:` echo of NCCL's last WARN.
  if (log_.app_errors.size() >= 64) return;
  std::size_t last = body.find("Last error:");
  if (last != std::string_view::npos) {
    std::string_view rest = core::trim_blanks(body.substr(last + 11));
    if (rest.empty()) {  // PyTorch prints the text on the next line (`[rank1]: Last error:` / `[rank1]:
                         // <text>`)
      last_error_pending_ = true;
      return;
    }
    NcclProcessLog probe;
    detail::handle_message(probe, rest, true, lineno, false);
    for (auto& is : probe.issues) log_.app_errors.push_back(std::move(is));
    return;
  }
  static constexpr std::string_view kSummaries[] = {
      "unhandled system error",         "remote process exited", "unhandled cuda error",
      "internal error - please report", "Test NCCL failure",     "NCCL communicator was aborted"};
  const bool nccl_word =
      body.find("NCCL") != std::string_view::npos || body.find("nccl") != std::string_view::npos;
  for (std::string_view k : kSummaries) {
    if (nccl_word && body.find(k) != std::string_view::npos) {
      NcclIssue is;
      is.line = lineno;
      is.kind = NcclIssueKind::kWarn;
      is.warn_level = true;
      is.message = core::redact_text(body.substr(0, 512));
      log_.app_errors.push_back(std::move(is));
      return;
    }
  }
}

NcclLog parse_nccl_log(std::string_view text, std::string source) {
  NcclLogParser p(std::move(source));
  p.feed(text);
  return p.finish();
}

NcclLog parse_nccl_log_file(const std::string& path) {
  NcclLogParser p(path);
  // Streamed, and bounded: a log that never ends (/dev/zero, a pipe left open) stops at the cap, a FIFO
  // nobody writes reads as empty.
  core::read_input_chunks(path, "--nccl-log " + path, "NCCL_DEBUG=INFO log file",
                          core::input_cap_bytes(core::kNcclLogCapMiB),
                          [&](std::string_view c) { p.feed(c); });
  return p.finish();
}

}  // namespace fabcheck::parse
