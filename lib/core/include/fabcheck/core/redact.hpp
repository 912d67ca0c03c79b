#pragma once
/// @file Secrets never reach a report: the environment variables fabcheck records (NCCL_*, UCX_*,
/// OMPI_MCA_*, and NCCL's own "set by environment" echoes) keep their names, but a value whose name or
/// content looks secret is replaced by kRedacted before anything is written (JSON, HTML, JUnit, hostfile).
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::core {

/// What a redacted value reads as.
inline constexpr std::string_view kRedacted = "<redacted>";

/// True when the name says secret (TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL, APIKEY, API_KEY,
/// PRIVATE_KEY, ACCESS_KEY, AUTH, a trailing _KEY; any case) or the value carries a known credential form:
/// an HTTP authorization scheme ("Bearer ", "Basic "), a PEM block ("-----BEGIN"), a JSON web token ("eyJ"
/// followed by a '.'), or a vendor token prefix (GitHub ghp_/gho_/ghu_/ghs_/ghr_/github_pat_, GitLab glpat-,
/// Slack xox?-, AWS AKIA/ASIA + 16 upper-case letters/digits, OpenAI/Stripe sk-/sk_live_, Hugging Face hf_),
/// a URL with user:password@, or a key=value inside the value naming a secret (password=, token=, secret=,
/// apikey=…).
bool looks_secret(std::string_view name, std::string_view value);

/// `value`, or kRedacted when looks_secret(name, value).
std::string redact_value(std::string_view name, std::string_view value);

/// The names in `env` whose value was redacted (reads kRedacted), sorted: what the report lists as
/// `env_redacted` beside each recorded environment, so a reader knows a value was set and withheld.
std::vector<std::string> redacted_names(const std::map<std::string, std::string>& env);

}  // namespace fabcheck::core
