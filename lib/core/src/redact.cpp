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

}  // namespace

bool looks_secret(std::string_view name, std::string_view value) {
  const std::string n = upper(name);
  for (const char* w : {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY",
                        "API_KEY", "PRIVATE_KEY", "ACCESS_KEY", "AUTH"})
    if (n.find(w) != std::string::npos) return true;
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "_KEY") == 0) return true;
  const std::string_view v = trim_quotes(value);
  const std::string vu = upper(v.substr(0, 8));
  if (starts(vu, "BEARER ") || starts(vu, "BASIC ") || starts(v, "-----BEGIN")) return true;
  if (starts(v, "eyJ") && v.find('.') != std::string_view::npos) return true;
  // Credentials inside a value: a URL's user:password@, or key=value pairs that name a secret.
  const std::string vl = upper(v);
  if (const auto scheme = v.find("://"); scheme != std::string_view::npos) {
    const auto at = v.find('@', scheme + 3);
    const auto colon = v.find(':', scheme + 3);
    if (at != std::string_view::npos && colon != std::string_view::npos && colon < at) return true;
  }
  for (const char* w : {"PASSWORD=", "PASSWD=", "PWD=", "TOKEN=", "SECRET=", "APIKEY=", "API_KEY="})
    if (vl.find(w) != std::string::npos) return true;
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

std::vector<std::string> redacted_names(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (const auto& [k, v] : env) {
    if (v == kRedacted) out.push_back(k);
  }
  return out;
}

}  // namespace fabcheck::core
