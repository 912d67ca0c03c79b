#pragma once
/// @file Transport health (DESIGN §5): whether the transport NCCL attempted actually worked. The verdict
/// (report/transport.hpp) says what was attempted (`rdma`, `socket_fallback`, ...); health says whether it
/// worked: `ok` (no warning), `degraded` (warnings that cost capability, e.g. a net plugin that failed to
/// load), `failed` (an error that ends or cripples the job: a QP that never connected, a CQ error, a broken
/// control connection, a bootstrap that never completed).
///
/// Every warning/error line the NCCL-log reader recorded (parse::NcclIssue) is put in one error class; each
/// class present becomes one group with its count, hosts, first line and the decoded meaning of the error
/// (strerror of a verbs call, `ibv_wc_status` of a completion). Sources of the decodings:
/// NCCL's message forms and its maintainers' readings of them (NVIDIA/nccl#928, #304 for
/// status 4; #426 for status 12; #769, #718, #622 for ibv_modify_qp), `enum ibv_wc_status` of rdma-core
/// (`libibverbs/verbs.h`), and ncclResult_t of `nccl.h`.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Error classes, root causes first.
enum class NcclErrorClass {
  kIbConnect,   ///< QP setup: `Call to ibv_modify_qp|ibv_create_qp ... failed`
  kIbResource,  ///< verbs resources: `ibv_reg_mr`, `ibv_reg_dmabuf_mr`, `ibv_alloc_pd`, `ibv_create_cq`, ...
  kIbCompletion,  ///< `NET/IB : Got completion [from peer ...] with error N | status=N`; NET/OFI completion
                  ///< errors
  kIbDevice,   ///< the HCA's fatal asynchronous events (`async fatal event: local catastrophic error`, QP/CQ
               ///< errors, `Got async event : port error`)
  kBootstrap,  ///< bootstrap / connect failures and timeouts, `Bootstrap : no socket interface found`
  kSocket,     ///< a TCP control/proxy connection broke (`socketProgress: Connection closed ...`)
  kSystemError,  ///< `unhandled system error`, `internal error`, proxy operation failures, abort
  kPlugin,       ///< a net plugin failed to load or initialise; `network X not found` (fatal)
  kLibibverbs,   ///< `Failed to open libibverbs.so`: NCCL could not look for RDMA hardware
  kOtherWarn,    ///< any other NCCL WARN line
};

/// Lowercase name used in the report: ib_connect, ib_resource, ib_completion, ib_device, bootstrap, socket,
/// system_error, plugin, libibverbs, other_warn.
std::string_view name(NcclErrorClass c);

/// One error class present in the logs.
struct ErrorGroup {
  NcclErrorClass cls = NcclErrorClass::kOtherWarn;  ///< class
  bool fatal = false;                               ///< ends or cripples the job (status `failed`)
  std::size_t count = 0;           ///< lines of this class (over every process; capped lists counted)
  std::vector<std::string> hosts;  ///< hosts that logged it, by first appearance
  std::string first_host;          ///< host of the first line
  std::size_t first_line = 0;      ///< line number of the first line (in its log)
  std::string first_message;       ///< the first line's message, as printed
  std::map<std::string, std::size_t> details;  ///< decoded key → count, e.g. "ibv_modify_qp: Network is
                                               ///< unreachable", "RETRY_EXC_ERR (12)"
  std::string top_detail;                      ///< the most frequent key of `details` ("" when none)
  std::string meaning;  ///< what the most frequent detail means (decoded), one sentence
  std::string remedy;   ///< what to do, one sentence
};

/// Health of the transport over all logs.
struct TransportHealth {
  std::string status = "ok";  ///< ok | degraded | failed; unknown when the input held no NCCL line at all
  std::vector<ErrorGroup> groups;  ///< present classes: fatal first, then in enum order
  std::vector<ErrorGroup> folded;  ///< system_error lines that only restate a more specific fatal class
  std::size_t errors = 0;          ///< warning/error lines in the groups
  std::size_t retries = 0;         ///< INFO retry lines (NCCL retried a verbs call or a connect): not errors
};

/// Puts one recorded issue in its class; `fatal` gets whether it ends the job. Returns false for lines that
/// are not errors (INFO proxy/service chatter, error traces that only propagate an error already counted).
bool classify_issue(const parse::NcclIssue& is, NcclErrorClass& cls, bool& fatal);

/// Meaning of an `ibv_wc_status` number (DESIGN §5; rdma-core's `enum ibv_wc_status`): 4 → "local protection
/// error: ...".
std::string completion_meaning(int status);

/// Meaning of a verbs call's strerror text (`ibv_modify_qp` + "Network is unreachable" → "...").
std::string ibv_call_meaning(const std::string& function, const std::string& error_text);

/// Health of every process of every log.
TransportHealth assess_health(const std::vector<parse::NcclLog>& logs);

/// Health of the given processes (one host's).
TransportHealth assess_health(const std::vector<const parse::NcclProcessLog*>& procs);

/// One line for the console's first line: "connection setup FAILED on node01 (ibv_modify_qp: Network is
/// unreachable ×17)"; "" when the status is ok.
std::string health_headline(const TransportHealth& h);

/// The findings the health calls for (fail for the root fatal class(es), the consequences folded in as
/// evidence; warn for plugin / libibverbs problems when `plugin_is_cause` is false, i.e. when no
/// RDMA_FALLBACK_SOCKET already carries them).
std::vector<Finding> health_findings(const TransportHealth& h, bool plugin_is_cause);

/// The `health` object of the transport section.
nlohmann::json health_json(const TransportHealth& h);

}  // namespace fabcheck::report
