#include "fabcheck/core/redact.hpp"

#include <algorithm>
#include <cctype>

#include "fabcheck/core/ascii.hpp"

namespace fabcheck::core {

namespace {

std::string upper(std::string_view s) {
  return ascii_upper(s);
}

bool starts(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

std::string_view trim_quotes(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\'' || v.front() == '"')) v.remove_prefix(1);
  return v;
}

/// The words of an upper-cased name ("OMPI_MCA_OOB_TCP_PASSWORD" -> OMPI MCA OOB TCP PASSWORD).
std::vector<std::string_view> words(std::string_view n) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < n.size()) {
    while (i < n.size() && !std::isalnum(static_cast<unsigned char>(n[i]))) ++i;
    std::size_t e = i;
    while (e < n.size() && std::isalnum(static_cast<unsigned char>(n[e]))) ++e;
    if (e > i) out.push_back(n.substr(i, e - i));
    i = e;
  }
  return out;
}

/// `user:password@host` in one token of a value, with or without a scheme before it.
bool has_userinfo(std::string_view v) {
  std::size_t i = 0;
  while (i < v.size()) {
    const std::size_t end = std::min(v.size(), v.find_first_of(" \t,;", i));
    std::string_view tok = v.substr(i, end - i);
    if (const auto s = tok.find("://"); s != std::string_view::npos) tok.remove_prefix(s + 3);
    const auto at = tok.find('@');
    if (at != std::string_view::npos) {
      const auto user = tok.substr(0, at);
      const auto colon = user.find(':');
      if (colon != std::string_view::npos && colon + 1 < user.size() &&
          user.find('/') == std::string_view::npos)
        return true;
    }
    i = end + 1;
  }
  return false;
}

/// A long run of letters and digits that reads as generated, not written: at least 24 characters with
/// digits and both cases (base64/base62 keys), or at least 32 hexadecimal digits with letters (hex keys,
/// digests). Names, paths and device lists break into shorter runs at their separators.
bool has_random_run(std::string_view v) {
  std::size_t i = 0;
  while (i < v.size()) {
    std::size_t e = i;
    bool up = false, low = false, dig = false, hex = true;
    while (e < v.size() && std::isalnum(static_cast<unsigned char>(v[e]))) {
      const unsigned char c = static_cast<unsigned char>(v[e]);
      up |= std::isupper(c) != 0;
      low |= std::islower(c) != 0;
      dig |= std::isdigit(c) != 0;
      hex &= std::isxdigit(c) != 0;
      ++e;
    }
    const std::size_t n = e - i;
    if ((n >= 24 && dig && up && low) || (n >= 32 && hex && dig && (up || low))) return true;
    i = e + 1;
  }
  return false;
}

}  // namespace

bool looks_secret(std::string_view name, std::string_view value) {
  const std::string n = upper(name);
  for (const char* w : {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY",
                        "API_KEY", "PRIVATE_KEY", "ACCESS_KEY", "AUTH"})
    if (n.find(w) != std::string::npos) return true;
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "_KEY") == 0) return true;
  const auto ws = words(n);
  for (const auto& w : ws)
    if (w == "PASS" || w == "COOKIE" || w == "CREDS" || (w == "PWD" && ws.size() > 1)) return true;
  const std::string_view v = trim_quotes(value);
  const std::string vu = upper(v.substr(0, 8));
  if (starts(vu, "BASIC ") || starts(v, "-----BEGIN")) return true;
  if (starts(v, "eyJ") && v.find('.') != std::string_view::npos) return true;
  // Credentials inside a value: an HTTP header ("Authorization: Bearer …", "Cookie: …"), key=value pairs that
  // name a secret, a URL's (or a bare proxy's) user:password@, a generated key.
  const std::string vl = upper(v);
  for (const char* w : {"AUTHORIZATION:", "BEARER ", "COOKIE:", "PASSWORD=", "PASSWD=", "PWD=", "TOKEN=",
                        "SECRET=", "APIKEY=", "API_KEY="})
    if (vl.find(w) != std::string::npos) return true;
  if (has_userinfo(v) || has_random_run(v)) return true;
  for (const char* p : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-",
                        "xoxa-", "xoxs-", "sk-", "sk_live_", "hf_"})
    if (starts(v, p) && v.size() > std::string_view(p).size() + 8) return true;
  if ((starts(v, "AKIA") || starts(v, "ASIA")) && v.size() >= 20 &&
      std::all_of(v.begin(), v.begin() + 20, [](char c) {
        return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
      }))
    return true;
  return false;
}

std::string redact_value(std::string_view name, std::string_view value) {
  return looks_secret(name, value) ? std::string(kRedacted) : std::string(value);
}

bool known_harmless_name(std::string_view name) {
  for (const char* p :
       {"NCCL_",  "UCX_",   "UCC_", "OMPI_", "PMIX_", "PRTE_", "SLURM_", "CUDA_", "NVIDIA_",   "FI_",
        "HCOLL_", "I_MPI_", "MV2_", "PSM2_", "PSM3_", "HFI_",  "IPATH_", "OMP_",  "FABCHECK_", "LC_"})
    if (starts(name, p)) return true;
  for (const char* n : {"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "HOME", "PWD", "HOSTNAME", "USER", "LOGNAME",
                        "SHELL", "LANG", "TERM", "TMPDIR", "TZ"})
    if (name == n) return true;
  return false;
}

std::string redact_env_value(std::string_view name, std::string_view value) {
  return known_harmless_name(name) ? redact_value(name, value) : std::string(kRedacted);
}

std::vector<std::string> redact_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool next_secret = false;
  for (const auto& a : argv) {
    if (next_secret && !a.starts_with("-")) {
      out.emplace_back(kRedacted);
      next_secret = false;
      continue;
    }
    next_secret = false;
    const auto eq = a.find('=');
    if (a.starts_with("-") && eq != std::string::npos) {
      out.push_back(a.substr(0, eq + 1) + redact_value(a.substr(0, eq), a.substr(eq + 1)));
    } else if (a.starts_with("-")) {
      next_secret = looks_secret(a, "");  // "--password x", "-token x": the value is the next word
      out.push_back(a);
    } else {
      out.push_back(redact_value("", a));
    }
  }
  return out;
}

std::string redact_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool next_secret = false;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t end = std::min(text.size(), text.find_first_of(" \t", i));
    const std::string_view tok = text.substr(i, end - i);
    const auto eq = tok.find('=');
    const std::string_view name = eq == std::string_view::npos ? std::string_view() : tok.substr(0, eq);
    const std::string u = upper(tok);
    const bool scheme = u == "BEARER" || u == "BASIC";
    if (tok.empty()) {
    } else if (scheme) {  // "Bearer <token>": the scheme stays, the word after it goes
      out.append(tok);
      next_secret = true;
    } else if (next_secret) {
      out += kRedacted;
      next_secret = false;
    } else if (tok.back() == ':' && looks_secret(tok.substr(0, tok.size() - 1), "")) {
      out.append(tok);  // a header that names a secret ("Authorization:", "X-Auth-Token:")
      next_secret = true;
    } else if (eq != std::string_view::npos && looks_secret(name, tok.substr(eq + 1))) {
      out.append(name).append("=").append(kRedacted);
    } else if (looks_secret("", tok)) {
      out += kRedacted;
    } else {
      out.append(tok);
    }
    if (end < text.size()) out += text[end];
    i = end + 1;
  }
  return out;
}

std::vector<std::string> redacted_names(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (const auto& [k, v] : env) {
    if (v == kRedacted) out.push_back(k);
  }
  return out;
}

}  // namespace fabcheck::core
