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
/// PRIVATE_KEY, ACCESS_KEY, AUTH, a trailing _KEY, or a word PASS, COOKIE, CREDS, PWD of a longer name; any
/// case) or the value carries a known credential form: an HTTP authorization scheme ("Bearer ", "Basic ")
/// or header ("Authorization:", "Cookie:" anywhere in it), a PEM block ("-----BEGIN"), a JSON web token
/// ("eyJ" followed by a '.'), a vendor token prefix (GitHub ghp_/gho_/ghu_/ghs_/ghr_/github_pat_, GitLab
/// glpat-, Slack xox?-, AWS AKIA/ASIA + 16 upper-case letters/digits, OpenAI/Stripe sk-/sk_live_, Hugging
/// Face hf_), `user:password@` (in a URL or bare, as proxy variables take it), a key=value inside the value
/// naming a secret (password=, token=, secret=, apikey=…), or a long random-looking run (24+ letters and
/// digits of both cases, or 32+ hexadecimal digits). The name-and-shape rule follows gitleaks' and
/// detect-secrets' keyword and entropy detectors, without their entropy threshold: fabcheck records
/// transport settings, which never hold such runs.
bool looks_secret(std::string_view name, std::string_view value);

/// `value`, or kRedacted when looks_secret(name, value).
std::string redact_value(std::string_view name, std::string_view value);

/// True for the environment variables whose values fabcheck writes (allow-listed by name): the
/// transport, launcher, CUDA and OpenMP families (NCCL_, UCX_, UCC_, OMPI_, PMIX_, PRTE_, SLURM_, CUDA_,
/// NVIDIA_, FI_, HCOLL_, I_MPI_, MV2_, PSM2_, PSM3_, HFI_, IPATH_, OMP_, FABCHECK_, LC_) and the process
/// basics (PATH, LD_LIBRARY_PATH, LD_PRELOAD, HOME, PWD, HOSTNAME, USER, LOGNAME, SHELL, LANG, TERM, TMPDIR,
/// TZ).
bool known_harmless_name(std::string_view name);

/// The value of an environment variable as written where a whole environment is recorded (the nccl-tests
/// `-J` file's env list): redact_value for a known_harmless_name, kRedacted for every other name.
std::string redact_env_value(std::string_view name, std::string_view value);

/// A command line as it may be written: `--flag=value` and `value` redacted by redact_value, and the word
/// after a flag whose name says secret (`--password x`, `-token x`) replaced by kRedacted.
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);

/// A line of free text (an NCCL log line quoted as evidence) with each secret word replaced: `NAME=value`
/// words by redact_value, words that look secret by themselves, and the word after "Bearer"/"Basic" or after
/// a secret-named header ("X-Auth-Token: …"). Blanks are kept as they were.
std::string redact_text(std::string_view text);

/// The names in `env` whose value was redacted (reads kRedacted), sorted: what the report lists as
/// `env_redacted` beside each recorded environment, so a reader knows a value was set and withheld.
std::vector<std::string> redacted_names(const std::map<std::string, std::string>& env);

}  // namespace fabcheck::core
