#pragma once
/// @file Reader of NCCL debug logs (`NCCL_DEBUG=INFO`, NCCL 2.3 → 2.30). It records facts only: which network
/// each process chose, the devices and link layers it listed, GPUDirect RDMA lines, the transport of every
/// per-channel/per-peer connection, warnings and errors. The verdict is drawn in lib/analysis
/// (report/transport.hpp).
///
/// Accepted envelopes (NCCL src/debug.cc writes the prefix): `host:pid:tid [dev] NCCL INFO msg`,
/// `host:pid:tid [dev] file:line [(func)] NCCL WARN msg`, TRACE and CALL lines, any opaque text before the
/// host
/// (`mpirun --tag-output` `[1,R]<stdout>:`, `[rank]` labels, pdsh `addr: `, 2.26+ `[date time] ` WARN
/// stamps), prefixes cut down to ` [0] NCCL INFO msg`, and bare messages with no prefix at all (message-only
/// mode: only known message forms are taken). Blank WARN lead-ins (empty, or a lone `[1,23]<stdout>:`) are
/// counted as blank. Input is read line by line with a bounded line buffer: lines longer than kMaxLineBytes
/// and binary lines are skipped and counted, so memory and time stay linear and bounded for any input.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::parse {

/// Lines longer than this (bytes, without the newline) are skipped and counted in
/// NcclLogStats::skipped_overlong. NCCL itself formats messages into 1024 bytes; wrappers add little.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

/// NCCL version as major*10000 + minor*100 + patch (2.18.3 → 21803); 0 = unknown.
using NcclVersionCode = int;

/// Parses "2.18.3" / "2.18.3+cuda12.2" / "2.7.6-1" into a NcclVersionCode; 0 when not a version.
NcclVersionCode nccl_version_code(std::string_view text);

/// One device of a `NET/IB : Using [n]name:port/LL` list (or a 2.3 `NET/IB: [n] name:port/LL` line).
struct NcclNetDevice {
  int index = -1;          ///< NCCL net-device index `[n]` (the `<dev>` of `via NET/IB/<dev>`)
  std::string name;        ///< HCA name, e.g. "mlx5_0"
  int port = 0;            ///< HCA port number
  std::string link_layer;  ///< "InfiniBand", "RoCE" or "" (2.26+ `UNSPECIFIED`, or unknown)
  bool sharp = false;      ///< `/SHARP` suffix (HPC-X plugin)
};

/// A socket interface as NCCL prints it: `name:address` (`eth0:192.0.2.1<0>` → name eth0, address 192.0.2.1).
struct NcclIface {
  std::string name;     ///< netdev name, e.g. "eth0", "ib0"
  std::string address;  ///< address text without the `<port>` tail
};

/// Transport kind of one connection line.
enum class NcclTransportKind { kP2P, kShm, kNet, kCollNet };

/// Lowercase name: "p2p", "shm", "net", "collnet".
std::string_view name(NcclTransportKind k);

/// One per-channel, per-peer connection line (`Channel 00/0 : 3[3] -> 8[0] [send] via NET/IB/0/GDRDMA`,
/// `Ring 00 : 6 -> 2 [receive] via NET/IB/0`, `... via P2P/IPC/read`, `... via SHM/direct/direct`,
/// `CollNet 00/0 : 3 [send] via COLLNET/IBext/0/GDRDMA`).
struct NcclConnection {
  std::size_t line = 0;                              ///< 1-based line number in the log
  int channel = -1;                                  ///< channel (ring) id
  int conn_index = -1;                               ///< connIndex (2.12+), -1 when not printed
  int from_rank = -1;                                ///< sending rank
  int to_rank = -1;                                  ///< receiving rank (-1 for CollNet lines)
  std::string direction;                             ///< "send", "receive" or "" (P2P/SHM lines have none)
  NcclTransportKind kind = NcclTransportKind::kP2P;  ///< transport family
  std::string via;                                   ///< the text after `via `, e.g. "NET/IB/5/GDRDMA"
  std::string net;   ///< NET/CollNet only: network name ("IB", "Socket", "IBext_v8", "AWS Libfabric")
  int net_dev = -1;  ///< NET/CollNet only: NCCL net-device index
  bool gdr = false;  ///< NET/CollNet only: `/GDRDMA` present
};

/// A per-HCA GPUDirect line (`NET/IB : GPU Direct RDMA Enabled|Disabled for HCA 0 'mlx5_0' [(no module)]`).
struct NcclGdrHca {
  std::string net;       ///< network the line names ("IB", "Socket", ...)
  int hca = -1;          ///< HCA index
  std::string name;      ///< HCA name
  bool enabled = false;  ///< Enabled / Disabled
  std::string reason;    ///< "(no module)" text when printed, else ""
};

/// A per GPU/NIC-pair GPUDirect decision (`GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)`).
struct NcclGdrPair {
  std::string gpu;       ///< GPU as printed ("2[2]", "42000", rank)
  std::string hca;       ///< HCA as printed
  bool enabled = false;  ///< Enabled / Disabled
  int distance = -1;     ///< path-type index before the comparison, -1 when not printed
  int limit = -1;        ///< path-type index after the comparison (NCCL_NET_GDR_LEVEL), -1 when not printed
  std::string text;      ///< the message as printed
};

/// Category of a warning or error.
enum class NcclIssueKind {
  kWarn,        ///< any other NCCL WARN line
  kIbvCall,     ///< `Call to ibv_<fn> failed ...`
  kCompletion,  ///< `NET/IB : Got completion ... with error/status ...`
  kSocket,      ///< `socketProgress: Connection closed ...`, `Socket recv failed ...`
  kProxy,       ///< `[Proxy Service N] Failed to execute ...`, `[Service thread] Error ...`
  kPlugin,  ///< plugin failures: `NET/OFI ...` WARN, `Failed to initialize NET plugin`, plugin load errors
  kLibibverbs,       ///< `Failed to open libibverbs.so`
  kNetworkNotFound,  ///< `Error: network X not found.` / `Failed to initialize any NET plugin`
  kErrorTrace,       ///< INFO `file.cc:123 -> N` propagation lines (counted, first few kept)
};

/// Lowercase name of an issue kind ("warn", "ibv_call", "completion", ...).
std::string_view name(NcclIssueKind k);

/// One warning/error line.
struct NcclIssue {
  std::size_t line = 0;                       ///< 1-based line number
  NcclIssueKind kind = NcclIssueKind::kWarn;  ///< category
  bool warn_level = false;                    ///< printed at WARN level
  std::string message;                        ///< message text (after `NCCL WARN `/`NCCL INFO `)
  std::string ibv_function;                   ///< kIbvCall: e.g. "ibv_modify_qp"
  std::string error_text;                     ///< kIbvCall: strerror text / errno as printed
  int status = -1;          ///< kCompletion: ibv_wc_status number (-1 unknown); kErrorTrace: ncclResult_t
  std::string status_name;  ///< kCompletion: ibv_wc_status name ("RETRY_EXC_ERR"); kErrorTrace: result name
};

/// What makes two issues "the same error" for counting: kind, status, verbs function, error text, and for
/// other warnings the message's first 48 characters without digits (addresses, ports and pids vary).
std::string issue_signature(const NcclIssue& is);

/// Name of an `ibv_wc_status` value (IBV_WC_ prefix dropped): 12 → "RETRY_EXC_ERR"; "" when out of range.
std::string_view ibv_wc_status_name(int status);

/// Everything recorded for one process (`host:pid`; tids are merged: NCCL logs from init and proxy threads).
struct NcclProcessLog {
  std::string host;                 ///< host name as printed ("" when the prefix was removed from the log)
  long long pid = 0;                ///< pid (0 when unknown)
  std::optional<int> tag_rank;      ///< MPI rank from `--tag-output` `[job,rank]` wrappers, if any
  std::vector<int> cuda_devs;       ///< `[dev]` values seen (sorted, unique)
  std::vector<int> ranks;           ///< NCCL ranks this process is known to hold (from comm/connection lines)
  std::optional<int> nranks;        ///< communicator size (`nranks`/`nRanks`), largest seen
  std::optional<int> nnodes;        ///< `nNodes` (2.20+), largest seen
  std::string version;              ///< `NCCL version` INFO line text ("2.25.1+cuda12.8"), "" when absent
  NcclVersionCode version_min = 0;  ///< lower bound inferred from message formats (0: none)
  NcclVersionCode version_max = 0;  ///< upper bound inferred from message formats (0: none)
  std::string net_plugin;  ///< external net plugin in use ("NCCL RDMA Plugin v8", "IBext", "AWS Libfabric"),
                           ///< "" none seen
  std::string net_plugin_path;  ///< `Plugin Path : ...`
  bool plugin_absent = false;   ///< a `No plugin found` / `Could not find: libnccl-net.so` line was seen
  std::string collnet_plugin;   ///< `Loaded collnet plugin <name>`
  std::string network;  ///< last `Using network X` / `Using internal Network X` / `Assigned NET plugin X`
  std::size_t network_line = 0;           ///< line of that choice
  std::vector<NcclNetDevice> ib_devices;  ///< last non-empty `NET/IB : Using` list (or 2.3 device lines)
  bool ib_using_empty =
      false;  ///< a `NET/IB : Using [RO]; OOB ...` line with no device (2.24+ after no device)
  bool ib_no_device = false;        ///< `NET/IB : No device found.`
  bool ib_init_failed = false;      ///< `Failed to initialize NET plugin IB` (2.27+)
  bool libibverbs_missing = false;  ///< `Failed to open libibverbs.so`
  bool ib_sideband = false;  ///< 2.0 - 2.3 `NET/IB : Using interface X for sideband communication`: IB looked
  std::vector<NcclIface> socket_ifaces;     ///< `NET/Socket : Using` list
  std::vector<NcclIface> bootstrap_ifaces;  ///< `Bootstrap : Using` (and 2.3 `NET : Using interface`)
  std::vector<NcclIface> oob_ifaces;        ///< `; OOB name:addr` of `NET/IB : Using`
  bool ofi = false;                         ///< `NET/OFI` lines (aws-ofi-nccl) seen
  std::string ofi_provider;                 ///< `NET/OFI Selected Provider is <p>`
  std::vector<NcclGdrHca> gdr_hca;          ///< per-HCA GDR lines (last per HCA index)
  std::vector<NcclGdrPair> gdr_pairs;       ///< per GPU/HCA GDR decisions (first 64)
  std::optional<int> rings_gdr;             ///< `Connected all rings, use ring PXN p GDR g` (2.24+): g
  bool qp_lid = false;                      ///< a per-QP line with `LID` (InfiniBand)
  bool qp_gid = false;                      ///< a per-QP line with `GID` (RoCE)
  bool roce_gid_in_error = false;           ///< an error line with an IPv4-mapped GID (`::ffff:`), i.e. RoCE
  bool ib_peer_in_error =
      false;  ///< an error line with a link-local peer on an IPoIB netdev (`fe80::..%ib0`): IB
  std::map<int, double> topo_net_gbps;  ///< topology dump `+ NET[1.2] - NET/0 (0/0/1.250000)`: NET index →
                                        ///< its bandwidth (third field, GB/s = 1e9 B/s; NCCL's `net.bw`)
  std::optional<bool> nvls_available;   ///< `NVLS multicast support is [not ]available`
  int nvls_channels = 0;                ///< `N nvls channels` (largest seen)
  std::vector<NcclConnection> connections;  ///< connection lines (first kMaxConnections)
  std::size_t connections_total = 0;        ///< all connection lines, also those beyond the cap
  std::map<std::string, std::string> env;   ///< `NCCL_X set by environment to Y.` echoes (value as printed)
  std::size_t ib_retries = 0;      ///< INFO `Call to ibv_... failed ..., retrying` lines (2.27+), not errors
  std::size_t socket_retries = 0;  ///< INFO `Call to connect returned ..., retrying` lines, not errors
  std::vector<NcclIssue> issues;   ///< warnings/errors: the first kMaxIssues, then one more of each new
                                   ///< signature (issue_signature), so a late root cause is never dropped
  std::map<std::string, std::size_t> issues_beyond_cap;  ///< signature → lines not stored (≤ 256 signatures)
  std::size_t issues_total = 0;                          ///< all warnings/errors, also those beyond the cap
  std::size_t lines = 0;                                 ///< lines attributed to this process
  std::size_t message_only_lines = 0;  ///< of them: prefix-less lines (no NCCL INFO/WARN envelope)
  std::size_t first_line = 0;          ///< first line number of this process
};

/// A rank of an nccl-tests `# Using devices` header (`#  Rank  0 Group  0 Pid 120890 on node01 device  0
/// ...`).
struct NcclTestsRank {
  int rank = -1;      ///< rank
  long long pid = 0;  ///< pid
  std::string host;   ///< host name
  int device = -1;    ///< CUDA device
};

/// Line counters. Every input line lands in exactly one of: nccl_lines, message_only_lines, foreign_lines,
/// blank_lines, skipped_overlong, skipped_binary.
struct NcclLogStats {
  std::size_t bytes = 0;               ///< bytes read
  std::size_t lines = 0;               ///< lines read (a last line without newline counts)
  std::size_t nccl_lines = 0;          ///< lines with an `NCCL INFO|WARN|TRACE|CALL` envelope
  std::size_t message_only_lines = 0;  ///< prefix-less lines recognized as NCCL messages
  std::size_t foreign_lines = 0;       ///< other text (application output, MPI help, nccl-tests tables)
  std::size_t blank_lines = 0;         ///< empty lines and bare wrapper prefixes (WARN lead-ins)
  std::size_t skipped_overlong = 0;    ///< lines longer than kMaxLineBytes (not examined)
  std::size_t skipped_binary = 0;      ///< lines with NUL or many control bytes (not examined)
  std::size_t unparsed = 0;  ///< NCCL lines whose message matched no known form (kept as facts: none)
  bool truncated = false;    ///< the input did not end with a newline (cut-off log)
};

/// A whole parsed log (one file or text).
struct NcclLog {
  std::string source;                     ///< file name or label
  std::vector<NcclProcessLog> processes;  ///< by first appearance; host "" = prefix-less lines
  std::vector<std::string>
      bare_versions;  ///< bare `NCCL version X` lines (2.3 - 2.21 rank 0 stdout) that
                      ///< no host's lines surround (the others set that process' version)
  std::map<std::string, std::string> command_env;  ///< `NCCL_X=Y` assignments of command lines in the log
                                                   ///< (a shell prompt or a command word before them:
                                                   ///< `$ NCCL_X=1 ./a.out`, `mpirun -x`, `export`);
                                                   ///< never from comments or prose
  std::vector<NcclTestsRank> tests_ranks;          ///< nccl-tests header ranks
  /// Application-level NCCL error summaries outside NCCL's own lines (PyTorch `DistBackendError: NCCL error
  /// ... remote process exited`, its `Last error:` echo, nccl-tests `Test NCCL failure common.cu:...`), first
  /// 64; they count only when NCCL's own lines show no failure (they repeat it otherwise).
  std::vector<NcclIssue> app_errors;
  NcclLogStats stats;  ///< line counters
};

/// Caps that bound memory for hostile input; totals are still counted.
inline constexpr std::size_t kMaxConnections = 4096;  ///< stored connection lines per process
inline constexpr std::size_t kMaxIssues = 256;        ///< stored issues per process
inline constexpr std::size_t kMaxProcesses =
    16384;  ///< processes; lines of further processes count as foreign

/// Streaming parser: feed chunks of any size, then finish(). Memory is bounded by kMaxLineBytes plus the
/// recorded facts (capped as above).
class NcclLogParser {
 public:
  /// @param source file name or label recorded in NcclLog::source.
  explicit NcclLogParser(std::string source = {});
  /// Consumes a chunk (any split, also inside a line).
  void feed(std::string_view chunk);
  /// Processes a last unterminated line (sets stats.truncated) and returns the result. Call once.
  NcclLog finish();

 private:
  void line(std::string_view l);
  void line_one(std::string_view l);
  void flush_pending_version(std::optional<std::size_t> after);
  void drop_phantom_process();
  void note_app_error(std::string_view body, std::size_t lineno);
  bool last_error_pending_ = false;  ///< the previous line was PyTorch's bare `Last error:`
  NcclLog log_;
  std::string partial_;
  bool overlong_ = false;
  std::map<std::string, std::size_t> index_;
  /// A bare `NCCL version X` line waiting for the next prefixed line: it belongs to the host whose lines
  /// surround it (2.3 - 2.21 print it from rank 0's stdout without a prefix).
  struct PendingVersion {
    std::string version;
    std::optional<std::size_t> before;  ///< process of the prefixed line before it
    std::optional<int> tag_rank;        ///< `[job,rank]<stdout>:` wrapper rank, when it had one
  };
  std::optional<PendingVersion> pending_version_;
  std::optional<std::size_t> last_process_;  ///< process of the last prefixed line
};

/// Parses a whole log held in memory. Never throws on content.
NcclLog parse_nccl_log(std::string_view text, std::string source = {});

/// Reads and parses a log file in 1 MiB chunks (any size, bounded memory).
/// @throws UsageError "--nccl-log: cannot read <path>: <reason>" when the file is missing or unreadable.
NcclLog parse_nccl_log_file(const std::string& path);

}  // namespace fabcheck::parse
