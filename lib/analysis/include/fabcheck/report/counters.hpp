#pragma once
/// @file What the hosts' own counters say about a step (proof of loss). Every step of `run` and of
/// a standalone probe command records `run.sections.<section>.counters` (counters_json: the step's duration
/// and, per host, the counters that moved). add_counter_findings then judges them; every threshold is below,
/// with its reason:
/// - `TCP_RETRANSMITS` (warn): a host lost at least kTcpRetransShare of its TCP segments (and at least
///   kTcpRetransMin of them) during the step — retransmitted, less those the receiver reported as duplicates
///   (DSACK: spurious, e.g. reordering): packets were lost on a path from that host — sockets
///   fallback, MPI over TCP and the virtual fabric all ride TCP. In the incast step the senders' losses are
///   one `INCAST_LOSS` (warn) naming the receiver instead: its link drops when several hosts send at once (a
///   shallow switch or NIC buffer without pause frames or ECN).
/// - `RDMA_LINK_ERRORS`: a link recovery or link-downed event on an RDMA port during the step (`fail`: the
///   port's own counters say the link retrained or dropped under the job), or only symbol or receive errors
///   grew (`warn`: bit errors a healthy link also shows at its specified error rate; a look, not a verdict).
/// - `RDMA_XMIT_DISCARDS` (warn): the port discarded packets it could not send (congestion or a down peer).
/// - `ROCE_PACKET_LOSS` (warn): RoCE retransmission counters (out_of_sequence, packet_seq_err,
///   local_ack_timeout_err, implied_nak_seq_err) grew; with no congestion notification sent or handled on the
///   host (np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets all unchanged) the message says the path
///   is lossy RoCE without ECN/DCQCN.
/// - `NETDEV_ERRORS` (warn): CRC, frame, carrier or length errors grew on a netdev (a bad cable or optic).
/// - `NETDEV_DROPS` (warn): a netdev dropped at least kNetdevDropShare of its received packets (and at least
///   kNetdevDropMin): the host could not take the traffic (ring buffer, CPU). mlx5 folds its rx_out_of_buffer
///   and rx_discards_phy into these (en_main.c mlx5e_get_stats), so the ethtool discards are shown, not
///   judged again.
/// - `PFC_PAUSE_STORM`: the NIC's PFC stall prevention fired during the step (mlx5
///   `tx_pause_storm_error_events`: `fail`, PFC was turned off on the port; only
///   `tx_pause_storm_warning_events`: `warn`). `PFC_PAUSE_HIGH` (warn): else one direction of a port was
///   paused for at least kPauseShare of the step on one priority (`rx_prio<p>_pause_duration`, µs: the
///   network paused it; `tx_…`: it paused the network). Rules and sources in counters_pause.cpp.
/// Counter names: model/counters.hpp. Meanings: Linux Documentation/ABI/stable/sysfs-class-infiniband (port
/// counters), NVIDIA "Understanding mlx5 Linux Counters and Status Parameters" (hw_counters), Linux
/// Documentation/ABI/testing/sysfs-class-net-statistics, RFC 4022 (tcpRetransSegs, tcpOutSegs).
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "fabcheck/model/counters.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// 0.1 % of the segments: a loss-free path retransmits only on spurious timeouts (~0); by Mathis et al.
/// ("The Macroscopic Behavior of the TCP Congestion Avoidance Algorithm", CCR 27(3), 1997: throughput <=
/// MSS/RTT * 1.22/sqrt(p)) a loss rate of 1e-3 already caps one stream at ~39 segments per round trip.
inline constexpr double kTcpRetransShare = 1e-3;
/// Below this many retransmitted segments a step says nothing (a handful of spurious timeouts).
inline constexpr long kTcpRetransMin = 20;
/// 0.1 % of received packets, at least 100: Linux counts frames of unknown protocols (LLDP, ...) as
/// rx_dropped.
inline constexpr double kNetdevDropShare = 1e-3;
inline constexpr long kNetdevDropMin = 100;
/// 10 % of the step: a port paused that long delivers at most 90 % of its line rate while it is paused, the
/// loss the busBw figures of the same step would show; a healthy lossless port pauses in bursts of
/// microseconds (the recorded healthy RoCE host: 120 µs in 12.5 s).
inline constexpr double kPauseShare = 0.10;

/// The `counters` record of one step: {duration_s, read_us_max, hosts: [{host, deltas, skipped, reset,
/// tcp}], totals}; `tcp` = {out_segs, retrans_segs, spurious_segs (DSACKed), lost_segs (retransmitted −
/// spurious)}; `totals` sums every host and port: {hosts, tcp_out_segs, tcp_retrans_segs, tcp_lost_segs,
/// tcp_lost_share (lost / sent), rdma_link_events (link_downed + link_error_recovery), rdma_link_errors
/// (symbol, receive, remote physical, link integrity, buffer overrun errors), rdma_xmit_discards,
/// roce_seq_errors (out_of_sequence, packet_seq_err, local_ack_timeout_err, implied_nak_seq_err),
/// netdev_errors (CRC, frame, length, carrier), netdev_drops (dropped, missed, fifo, over)} — the groups the
/// findings above judge, every field present (0 when nothing moved) so that `compare` lines up a clean step
/// with a lossy one (metric catalogue section `counters`).
nlohmann::json counters_json(const model::StepCounters& sc);

/// Which counters the console and the HTML show when they moved: a classification of names, in the model
/// (lib/render reads it there).
using model::is_shown_counter;

/// Adds the findings of `run.sections.<section>.counters` (see the file comment); none without a record.
void add_counter_findings(Document& doc, std::string_view section);

/// The console block of a step's record: one line per host whose judged counters moved (TCP retransmissions
/// only above the finding's thresholds: a clean fabric's few spurious ones stay in the report); "" when none
/// did.
std::string render_counters(const nlohmann::json& record, std::string_view step);

}  // namespace fabcheck::report
