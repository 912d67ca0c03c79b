#!/usr/bin/env python3
"""Writes the recorded before/after counter trees of tests/data/counters/. Run from this folder:
`python3 make_counters.py`; the tests read the trees, never this script. See README.md for the sources."""
import os
import shutil

# Linux drivers/infiniband/core/sysfs.c: the PMA port counters of ports/<p>/counters/ (IBTA PortCounters and
# PortCountersExtended).
IB_PORT = ["VL15_dropped", "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
           "local_link_integrity_errors", "multicast_rcv_packets", "multicast_xmit_packets",
           "port_rcv_constraint_errors", "port_rcv_data", "port_rcv_errors", "port_rcv_packets",
           "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors", "port_xmit_constraint_errors",
           "port_xmit_data", "port_xmit_discards", "port_xmit_packets", "port_xmit_wait", "symbol_error",
           "unicast_rcv_packets", "unicast_xmit_packets"]
# Linux drivers/infiniband/hw/mlx5/counters.c: basic_q_cnts, out_of_seq_q_cnts, retrans_q_cnts, cong_cnts,
# extended_err_cnts (hw_counters/), plus `lifespan` (the refresh interval in ms, not a counter).
MLX5_HW = ["duplicate_request", "implied_nak_seq_err", "lifespan", "local_ack_timeout_err", "np_cnp_sent",
           "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence", "packet_seq_err",
           "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors", "req_remote_invalid_request",
           "resp_cqe_error", "resp_cqe_flush_error", "resp_local_length_error", "resp_remote_access_errors",
           "rnr_nak_retry_err", "rp_cnp_handled", "rp_cnp_ignored", "rx_atomic_requests", "rx_read_requests",
           "rx_write_requests"]
# Linux net/core/net-sysfs.c: netstat_attrs of class/net/<if>/statistics/.
NET_STATS = ["collisions", "multicast", "rx_bytes", "rx_compressed", "rx_crc_errors", "rx_dropped", "rx_errors",
             "rx_fifo_errors", "rx_frame_errors", "rx_length_errors", "rx_missed_errors", "rx_nohandler",
             "rx_over_errors", "rx_packets", "tx_aborted_errors", "tx_bytes", "tx_carrier_errors",
             "tx_compressed", "tx_dropped", "tx_errors", "tx_fifo_errors", "tx_heartbeat_errors", "tx_packets",
             "tx_window_errors"]

# A RoCE port's netdev as mlx5 shows it in `ethtool -S` (Linux
# Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst; the order and the global-pause
# group as in a ConnectX-4 Lx listing quoted in public notes: "tx_pause_ctrl_phy: 1266552 ...
# tx_global_pause_duration: 555665182 ... tx_pause_storm_warning_events: 0 tx_pause_storm_error_events: 0").
# Only priority 3 (the RoCE priority of NVIDIA's lossless recipe) carries traffic; per-ring statistics
# (ch0_*, rx0_*, tx0_*) are there because real listings have them and the reader must leave them out.
MLX5_ETHTOOL = ["rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "rx_out_of_buffer", "rx_packets_phy",
                "rx_bytes_phy", "tx_packets_phy", "tx_bytes_phy", "rx_discards_phy", "tx_discards_phy",
                "rx_mac_control_phy", "tx_mac_control_phy", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy",
                "rx_global_pause", "rx_global_pause_duration", "tx_global_pause", "tx_global_pause_duration",
                "rx_global_pause_transition", "rx_prio3_bytes", "rx_prio3_packets", "rx_prio3_discards",
                "tx_prio3_bytes", "tx_prio3_packets", "rx_prio3_pause", "rx_prio3_pause_duration",
                "tx_prio3_pause", "tx_prio3_pause_duration", "rx_prio3_pause_transition", "rx_prio3_buf_discard",
                "rx_prio3_cong_discard", "rx_prio3_marked", "tx_pause_storm_warning_events",
                "tx_pause_storm_error_events", "module_unplug", "ch0_events", "ch0_poll", "rx0_packets",
                "rx0_bytes", "tx0_packets", "tx0_bytes"]
ROCE_NETDEV = "ens1f0np0"


def ethtool_text(stats):
    """`ethtool -S <if>` as ethtool prints it: a title, then one indented `name: value` per statistic."""
    return "NIC statistics:\n" + "".join(f"     {n}: {v}\n" for n, v in stats.items())


# The TCP line of /proc/net/snmp as Linux prints it (net/ipv4/proc.c snmp4_tcp_list).
TCP_HEAD = ("Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
            "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors")


def snmp(out_segs, retrans):
    return (f"{TCP_HEAD}\nTcp: 1 200 120000 -1 252724 19201 239285 212 4 1118913 {out_segs} {retrans} 0 "
            "239433 0\n")


def write(root, rel, value):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(f"{value}\n")


def host(root, ib=None, roce=None, eth=None, tcp=None, ethtool=None):
    """ib/roce: {counter: value} overrides of an mlx5 port; eth: overrides of eth0's statistics; ethtool:
    overrides of the RoCE netdev's `ethtool -S` statistics (written as sys/ethtool/<if>, with the netdev)."""
    base_ib = {n: 0 for n in IB_PORT}
    base_ib.update(port_xmit_data=9_000_000, port_rcv_data=8_000_000, port_xmit_packets=40_000,
                   port_rcv_packets=39_000)
    if ib is not None:
        d = dict(base_ib, **ib)
        for n, v in d.items():
            write(root, f"sys/class/infiniband/mlx5_0/ports/1/counters/{n}", v)
        for n in MLX5_HW:
            write(root, f"sys/class/infiniband/mlx5_0/ports/1/hw_counters/{n}", 10 if n == "lifespan" else 0)
        write(root, "sys/class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand")
    if roce is not None:
        hw = {n: (10 if n == "lifespan" else 0) for n in MLX5_HW}
        hw.update(roce)
        for n, v in hw.items():
            write(root, f"sys/class/infiniband/mlx5_1/ports/1/hw_counters/{n}", v)
        for n, v in base_ib.items():
            write(root, f"sys/class/infiniband/mlx5_1/ports/1/counters/{n}", v)
        write(root, "sys/class/infiniband/mlx5_1/ports/1/link_layer", "Ethernet")
    st = {n: 0 for n in NET_STATS}
    st.update(rx_packets=1_000_000, tx_packets=900_000, rx_bytes=1_400_000_000, tx_bytes=1_300_000_000)
    st.update(eth or {})
    for n, v in st.items():
        write(root, f"sys/class/net/eth0/statistics/{n}", v)
    for n in ("rx_packets", "tx_packets"):
        write(root, f"sys/class/net/lo/statistics/{n}", 5)
    if ethtool is not None:
        st = {n: 0 for n in MLX5_ETHTOOL}
        st.update(rx_packets=2_000_000, tx_packets=1_900_000, rx_packets_phy=2_000_100, tx_packets_phy=1_900_050,
                  rx_prio3_packets=1_990_000, tx_prio3_packets=1_890_000, ch0_events=1230, rx0_packets=1213)
        st.update(ethtool)
        p = os.path.join(root, "sys/ethtool", ROCE_NETDEV)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(ethtool_text(st))
        for n in ("rx_packets", "tx_packets"):
            write(root, f"sys/class/net/{ROCE_NETDEV}/statistics/{n}", st[n])
    out_segs, retrans = tcp or (1_094_118, 160)
    write(root, "proc/net/snmp", snmp(out_segs, retrans).rstrip("\n"))


CASES = {
    # A healthy IB host: traffic moved, nothing else.
    "ib-healthy": (dict(ib={}), dict(ib=dict(port_xmit_data=90_000_000, port_rcv_data=80_000_000,
                                               port_xmit_packets=400_000, port_rcv_packets=390_000),
                                      eth=dict(rx_packets=1_000_500, tx_packets=900_400),
                                      tcp=(1_095_118, 160))),
    # A bad cable: symbol errors, one link recovery and one link-downed event during the step.
    "ib-bad-cable": (dict(ib={}), dict(ib=dict(symbol_error=1234, link_error_recovery=1, link_downed=1,
                                                 port_rcv_errors=37, port_xmit_data=90_000_000))),
    # Lossy RoCE: sequence errors and ACK timeouts, no congestion notification at all.
    "roce-lossy": (dict(roce={}), dict(roce=dict(out_of_sequence=500, packet_seq_err=20,
                                                  local_ack_timeout_err=3))),
    # RoCE with ECN/DCQCN on: loss and CNPs.
    "roce-loss-with-ecn": (dict(roce={}), dict(roce=dict(out_of_sequence=40, np_cnp_sent=1800,
                                                          rp_cnp_handled=1500))),
    # A host dropping received frames (ring buffer) and retransmitting TCP.
    "eth-drops-tcp-loss": (dict(), dict(eth=dict(rx_packets=1_100_000, rx_dropped=5000, rx_missed_errors=200),
                                         tcp=(1_194_118, 2160))),
    # A healthy lossless RoCE port: microsecond pauses, ECN marks, traffic on the ring counters.
    "roce-pfc-healthy": (dict(ethtool={}), dict(ethtool=dict(rx_prio3_pause=3, rx_prio3_pause_duration=120,
                                                            rx_prio3_marked=9000, rx_packets=2_500_000,
                                                            rx_prio3_packets=2_490_000, ch0_events=2230,
                                                            rx0_packets=501_213))),
    # A pause storm: the host stopped draining its receive buffer, sent pause frames for 9 of the 12.5 s
    # and the NIC's stall prevention turned PFC off once.
    "roce-pause-storm": (dict(ethtool={}), dict(ethtool=dict(tx_pause_ctrl_phy=1_290_418, tx_prio3_pause=1_290_418,
                                                            tx_prio3_pause_duration=9_000_000,
                                                            tx_pause_storm_warning_events=1,
                                                            tx_pause_storm_error_events=1))),
    # Paused by the network for 3 of the 12.5 s (24 %): congestion further on.
    "roce-paused-by-network": (dict(ethtool={}), dict(ethtool=dict(rx_pause_ctrl_phy=41_927, rx_prio3_pause=41_927,
                                                                  rx_prio3_pause_duration=3_000_000,
                                                                  rx_prio3_pause_transition=39_218))),
    # A counter that went backwards (driver reset): left out, listed in `reset`.
    "eth-reset": (dict(eth=dict(rx_dropped=90_000)), dict(eth=dict(rx_dropped=3))),
}

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, (before, after) in CASES.items():
        d = os.path.join(here, name)
        shutil.rmtree(d, ignore_errors=True)
        host(os.path.join(d, "before"), **before)
        host(os.path.join(d, "after"), **after)
