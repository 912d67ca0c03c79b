#!/usr/bin/env python3
"""Writes the sysfs host models of host model as trees under tests/data/sysfs/<model>/.

Values are transcribed from the real outputs quoted in each model's README (`source:` lines): ibstat/ibv_devinfo/
show_gids/ibstatus/nvidia-smi/lspci captures. Layout rules: every RDMA device D with PCI path P
gets class/infiniband/D -> ../../devices/P/infiniband/D, devices/P/infiniband/D/device -> ../../../<bdf>,
bus/pci/devices/<bdf> -> ../../../devices/P, class/net/<nd> -> ../../devices/P/net/<nd>; every PCI endpoint and
bridge its vendor/device/class/numa_node/link files; empty GID slots are all-zero gids/<i> with no types/ndevs file.

Run from anywhere: `python3 tests/data/sysfs/make_models.py` (rewrites every model directory except README.md).
The trees are checked in; the script documents how they were made and lets a reviewer regenerate them.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000"


class Tree:
    def __init__(self, name):
        self.root = os.path.join(HERE, name)
        if os.path.isdir(self.root):
            for entry in os.listdir(self.root):
                if entry == "README.md":
                    continue
                p = os.path.join(self.root, entry)
                if os.path.islink(p) or os.path.isfile(p):
                    os.remove(p)
                else:
                    shutil.rmtree(p)
        os.makedirs(self.root, exist_ok=True)

    def w(self, rel, value):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(f"{value}\n")

    def wb(self, rel, data):
        """A binary file (PCI config space)."""
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)

    def rel_ln(self, rel, target_rel):
        """A relative symlink at `rel` pointing to root-relative `target_rel`, as the kernel makes them."""
        self.ln(rel, os.path.relpath(target_rel, os.path.dirname(rel)))

    def mkdir(self, rel):
        os.makedirs(os.path.join(self.root, rel), exist_ok=True)

    def ln(self, rel, target):
        p = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.lexists(p):
            os.remove(p)
        os.symlink(target, p)

    # --- PCI ---------------------------------------------------------------------------------------------------
    def bridge(self, path, vendor="0x1000", device="0xc030", speed="32.0 GT/s PCIe", width=16, cur_speed=None,
               cur_width=None, numa=0):
        """path: 'pci0000:15/0000:15:01.0/...' of the bridge itself."""
        d = f"devices/{path}"
        self.w(f"{d}/vendor", vendor)
        self.w(f"{d}/device", device)
        self.w(f"{d}/class", "0x060400")
        self.w(f"{d}/numa_node", numa)
        self.w(f"{d}/max_link_speed", speed)
        self.w(f"{d}/max_link_width", width)
        self.w(f"{d}/current_link_speed", cur_speed or speed)
        self.w(f"{d}/current_link_width", cur_width or width)

    def endpoint(self, path, vendor, device, cls, numa, cpulist, speed, width, cur_speed=None, cur_width=None):
        bdf = path.split("/")[-1]
        d = f"devices/{path}"
        self.w(f"{d}/vendor", vendor)
        self.w(f"{d}/device", device)
        self.w(f"{d}/class", cls)
        self.w(f"{d}/numa_node", numa)
        self.w(f"{d}/local_cpulist", cpulist)
        self.w(f"{d}/max_link_speed", speed)
        self.w(f"{d}/max_link_width", width)
        self.w(f"{d}/current_link_speed", cur_speed or speed)
        self.w(f"{d}/current_link_width", cur_width or width)
        self.ln(f"bus/pci/devices/{bdf}", f"../../../devices/{path}")
        return bdf

    # --- net -----------------------------------------------------------------------------------------------------
    def netdev(self, path, name, mtu, operstate="up", speed=None, type_=1):
        """path = PCI path of the function, or None for a virtual device."""
        base = f"devices/{path}/net/{name}" if path else f"devices/virtual/net/{name}"
        self.w(f"{base}/mtu", mtu)
        self.w(f"{base}/operstate", operstate)
        self.w(f"{base}/type", type_)
        if speed is not None:
            self.w(f"{base}/speed", speed)
        if path:
            self.ln(f"{base}/device", "../../../" + path.split("/")[-1])
        self.ln(f"class/net/{name}", f"../../{base}")

    def lo(self):
        self.netdev(None, "lo", 65536, "unknown", None, 772)

    # --- RDMA ----------------------------------------------------------------------------------------------------
    def rdma(self, path, name, attrs, ports):
        """ports: {num: {'files': {...}, 'gids': [(gid, type|None, ndev|None), ...]}}."""
        bdf = path.split("/")[-1]
        d = f"devices/{path}/infiniband/{name}"
        for k, v in attrs.items():
            self.w(f"{d}/{k}", v)
        self.ln(f"{d}/device", f"../../../{bdf}")
        self.ln(f"class/infiniband/{name}", f"../../{d}")
        for num, port in ports.items():
            pd = f"{d}/ports/{num}"
            for k, v in port["files"].items():
                self.w(f"{pd}/{k}", v)
            self.mkdir(f"{pd}/gid_attrs/types")
            self.mkdir(f"{pd}/gid_attrs/ndevs")
            for i, (gid, typ, ndev) in enumerate(port["gids"]):
                self.w(f"{pd}/gids/{i}", gid)
                if gid != ZERO_GID:
                    if typ:
                        self.w(f"{pd}/gid_attrs/types/{i}", typ)
                    if ndev:
                        self.w(f"{pd}/gid_attrs/ndevs/{i}", ndev)
            self.w(f"{pd}/pkeys/0", "0xffff")

    def uverbs(self, names):
        self.w("class/infiniband_verbs/abi_version", 6)
        for i, n in enumerate(names):
            self.w(f"class/infiniband_verbs/uverbs{i}/ibdev", n)

    def peermem(self, version="535.129.03", memory_peers=True):
        self.w("module/nvidia_peermem/version", version)
        if memory_peers:
            self.w("kernel/mm/memory_peers/nv_mem/version", version)


# --- PCI config space -----------------------------------------------------------------------------
# Register layout: PCI Express Base Specification r5.0 §7.5.3 (Express capability: Flags +2, Device
# Capabilities +4, Device Control +8) and §7.7.8 (ACS extended capability: ACS Capability +4, ACS Control +6);
# offsets and bits as include/uapi/linux/pci_regs.h names them. The bytes are little-endian.
# Device Control values (PCI_EXP_DEVCTL_*): NFERE 0x2, FERE 0x4, URRE 0x8, RELAX_EN 0x10, PAYLOAD bits 7:5
# (128 << n), EXT_TAG 0x100, NOSNOOP_EN 0x800, READRQ bits 14:12 (128 << n).
DEVCTL_NIC_RO = 0x593E  # lspci: RlxdOrd+ ExtTag+ NoSnoop+ MaxPayload 256 bytes, MaxReadReq 4096 bytes
DEVCTL_NIC_NO_RO = 0x592E  # the same with RlxdOrd-
DEVCTL_GPU = 0x2936  # RlxdOrd+ ExtTag+ NoSnoop+ MaxPayload 256 bytes, MaxReadReq 512 bytes
DEVCTL_BRIDGE = 0x002E  # RlxdOrd- ExtTag- MaxPayload 256 bytes, MaxReadReq 128 bytes
ACS_CAP_ALL = 0x007F  # ACSCap: every control implemented (value assumed: the threads quote ACSCtl only)
ACS_CTRL_REDIRECT = 0x001D  # SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+ (NVIDIA/nccl#304, #2079 "0x001d")


def config_space(vendor, device, cls, port_type, devctl, acs_ctrl=None, size=4096):
    """Bytes of a sysfs `config` file: header, Express capability at 0x40, ACS at 0x100 when acs_ctrl given."""
    b = bytearray(size)

    def put(off, value, n):
        b[off:off + n] = value.to_bytes(n, "little")

    put(0x00, int(vendor, 16), 2)
    put(0x02, int(device, 16), 2)
    put(0x06, 0x0010, 2)  # PCI_STATUS_CAP_LIST
    put(0x09, int(cls, 16), 3)  # prog-if, subclass, base class
    b[0x0E] = 1 if cls == "0x060400" else 0  # PCI_HEADER_TYPE: bridge / normal
    b[0x34] = 0x40  # PCI_CAPABILITY_LIST
    b[0x40], b[0x41] = 0x10, 0x00  # PCI_CAP_ID_EXP, no next capability
    put(0x42, 0x0002 | (port_type << 4), 2)  # PCI_EXP_FLAGS: version 2, PCI_EXP_FLAGS_TYPE
    put(0x44, 0x00000002, 4)  # PCI_EXP_DEVCAP_PAYLOAD 2 = 512 bytes supported
    put(0x48, devctl, 2)  # PCI_EXP_DEVCTL
    if acs_ctrl is not None and size >= 4096:
        put(0x100, 0x000D | (1 << 16), 4)  # PCI_EXT_CAP_ID_ACS, version 1, next 0
        put(0x104, ACS_CAP_ALL, 2)  # PCI_ACS_CAP
        put(0x106, acs_ctrl, 2)  # PCI_ACS_CTRL
    return bytes(b)


# --- building blocks ---------------------------------------------------------------------------------------------

# Model A pair k: host bridge, GPU bus, NIC bus (host model A, from the gpud H100 chain and [F09]).
A_PAIRS = [(0x15, 0x19, 0x1a), (0x37, 0x3b, 0x3c), (0x48, 0x4c, 0x4d), (0x59, 0x5d, 0x5e),
           (0x97, 0x9b, 0x9c), (0xb7, 0xbb, 0xbc), (0xc7, 0xcb, 0xcc), (0xd7, 0xdb, 0xdc)]
# Base LIDs of the 8 NDR rails as ibstat printed them [F04]: 128 534 972 1775 1494 717 774 2015.
A_LIDS = [0x80, 0x216, 0x3cc, 0x6ef, 0x5d6, 0x2cd, 0x306, 0x7df]
NUMA_CPUS = {0: "0-47,96-143", 1: "48-95,144-191"}


def pair_paths(k):
    hb, gbus, nbus = A_PAIRS[k]
    rc = f"pci0000:{hb:02x}"
    rp = f"{rc}/0000:{hb:02x}:01.0"
    usp = f"{rp}/0000:{hb + 1:02x}:00.0"
    dsp1 = f"{usp}/0000:{hb + 2:02x}:01.0"
    dsp2 = f"{usp}/0000:{hb + 2:02x}:02.0"
    return rp, usp, dsp1, dsp2, f"{dsp1}/0000:{gbus:02x}:00.0", f"{dsp2}/0000:{nbus:02x}:00.0", nbus


def ib_gids(guid_low, n=8):
    return [(f"fe80:0000:0000:0000:{guid_low}", "IB/RoCE v1", None)] + [(ZERO_GID, None, None)] * (n - 1)


def ib_port(rate, lid, cap_mask, state="4: ACTIVE", phys="5: LinkUp", sm_lid="0x1", gids=None):
    return {"files": {"state": state, "phys_state": phys, "rate": rate, "link_layer": "InfiniBand", "lid": lid,
                      "sm_lid": sm_lid, "sm_sl": 0, "lid_mask_count": 0, "cap_mask": cap_mask},
            "gids": gids}


def roce_port(gids, state="4: ACTIVE", phys="5: LinkUp", rate="400 Gb/sec (4X NDR)"):
    return {"files": {"state": state, "phys_state": phys, "rate": rate, "link_layer": "Ethernet", "lid": "0x0",
                      "sm_lid": "0x0", "sm_sl": 0, "lid_mask_count": 0, "cap_mask": "0x00010000"},
            "gids": gids}


def roce_gids_f07(mac_tail, ip_hex, ndev, slots):
    """[F07] layout: 0/1 link-local v1/v2, 2/3 IPv4-mapped v1/v2, rest empty."""
    ll = f"fe80:0000:0000:0000:a288:c2ff:fe00:{mac_tail}"
    v4 = f"0000:0000:0000:0000:0000:ffff:{ip_hex}"
    g = [(ll, "IB/RoCE v1", ndev), (ll, "RoCE v2", ndev), (v4, "IB/RoCE v1", ndev), (v4, "RoCE v2", ndev)]
    return g + [(ZERO_GID, None, None)] * (slots - len(g))


def model_a(name, hdr=False, mutate=None, gpus_only=None, pairs=range(8), peermem=True, memory_peers=True):
    """IB rail-optimized host; `mutate(t, k, info)` may change per-pair values before writing."""
    t = Tree(name)
    t.lo()
    sw_dev, speed = ("0xc010", "16.0 GT/s PCIe") if hdr else ("0xc030", "32.0 GT/s PCIe")
    names = []
    for k in pairs:
        rp, usp, dsp1, dsp2, gpu, nic, nbus = pair_paths(k)
        numa = 0 if k < 4 else 1
        info = {"gpu_cur_speed": None, "nic_cur_width": None, "nic_cur_speed": None,
                "port": ib_port("200 Gb/sec (4X HDR)" if hdr else "400 Gb/sec (4X NDR)", hex(A_LIDS[k]),
                                "0xa259e848" if hdr else "0xa751e848",
                                gids=ib_gids(f"88e9:a4ff:ff00:00{k}2" if hdr else f"58a2:e103:0000:00{k}0"))}
        if mutate:
            mutate(t, k, info)
        rp_speed = speed
        t.bridge(rp, vendor="0x8086", device="0x352a" if not hdr else "0x347a", speed=rp_speed, numa=numa)
        for b in (usp, dsp1, dsp2):
            t.bridge(b, device=sw_dev, speed=speed, numa=numa)
        t.endpoint(gpu, "0x10de", "0x20b0" if hdr else "0x2330", "0x030200", numa, NUMA_CPUS[numa], speed, 16,
                   cur_speed=info["gpu_cur_speed"])
        if gpus_only:
            continue
        t.endpoint(nic, "0x15b3", "0x101b" if hdr else "0x1021", "0x020700", numa, NUMA_CPUS[numa], speed, 16,
                   cur_speed=info["nic_cur_speed"], cur_width=info["nic_cur_width"])
        guid = f"88e9:a4ff:ff00:00{k}2" if hdr else f"58a2:e103:0000:00{k}0"
        ib = f"mlx5_{k}"
        t.rdma(nic, ib, {"node_type": "1: CA", "hca_type": "MT4123" if hdr else "MT4129",
                         "board_id": "MT_0000000594" if hdr else "MT_0000000838",
                         "fw_ver": "20.37.1700" if hdr else "28.41.1000", "hw_rev": 0,
                         "node_guid": guid, "sys_image_guid": guid, "node_desc": f"host-a {ib}"},
               {1: info["port"]})
        t.netdev(nic, f"ibp{nbus}s0", 4092, "down", None, 32)
        names.append(ib)
    # One NVSwitch function (class 0x068000) that the GPU scan must skip.
    t.bridge("pci0000:05/0000:05:01.0", vendor="0x8086", device="0x352a", speed=speed)
    t.endpoint("pci0000:05/0000:05:01.0/0000:06:00.0", "0x10de", "0x22a3", "0x068000", 0, NUMA_CPUS[0], speed, 2)
    if names:
        t.uverbs(names)
    if peermem:
        t.peermem(memory_peers=memory_peers)
    return t


def mgmt_nic(t):
    """Broadcom BCM5720 management port eno1 (no infiniband/ dir) under root port 00:1c.0."""
    t.bridge("pci0000:00/0000:00:1c.0", vendor="0x8086", device="0x1bb8", speed="8.0 GT/s PCIe", width=1)
    p = "pci0000:00/0000:00:1c.0/0000:01:00.0"
    t.endpoint(p, "0x14e4", "0x165f", "0x020000", 0, NUMA_CPUS[0], "5.0 GT/s PCIe", 1)
    t.netdev(p, "eno1", 1500, "up", 1000)


def roce_qos(t, nic, nd, trust="dscp", dscp_map=None, pfc=(3,), ecn=(3,)):
    """MLNX_OFED mlx5 qos/ and ecn/ files of netdev `nd` on PCI path `nic`, and the recorded
    `mlnx_qos -i <nd>` output at mlnx_qos/<nd> (PFC is DCB netlink, not sysfs). dscp_map: {dscp: prio}
    overrides of mlx5's default map DSCP d -> priority d >> 3."""
    prio_of = {d: d >> 3 for d in range(64)}
    prio_of.update(dscp_map or {})
    base = f"devices/{nic}/net/{nd}"
    t.w(f"{base}/qos/trust", trust)
    # one header line, then "dscp prio" per line (python/mlnx_qos print_dscp2prio_sysfs skips the first line)
    t.w(f"{base}/qos/dscp2prio", "dscp\tprio\n" + "\n".join(f"{d}\t{prio_of[d]}" for d in range(64)))
    # en_sysfs.c mlx5e_show_prio2buffer: "Priority\tBuffer" then "%d\t\t%d"; lossless priorities on buffer 1
    t.w(f"{base}/qos/prio2buffer", "Priority\tBuffer\n" + "\n".join(
        f"{p}\t\t{1 if p in pfc else 0}" for p in range(8)))
    for role in ("roce_np", "roce_rp"):
        for p in range(8):
            t.w(f"{base}/ecn/{role}/enable/{p}", 1 if p in ecn else 0)
    # python/mlnx_qos pretty_print, as in att/netarbiter nvmf/OUTPUTSAMPLE.setup-nic-lossless-layer3.sh.md
    lines = ["DCBX mode: OS controlled", f"Priority trust state: {trust}"]
    if trust == "dscp":
        lines.append("dscp2prio mapping:")
        for p in range(8):
            ds = [d for d in range(63, -1, -1) if prio_of[d] == p]
            for k in range(0, len(ds), 8):
                lines.append(f"\tprio:{p} dscp:" + "".join(f"{d:02d}," for d in ds[k:k + 8]))
    lines += ["Cable len: 7", "PFC configuration:", "\tpriority    0   1   2   3   4   5   6   7",
              "\tenabled     " + "".join(f"{1 if p in pfc else 0}   " for p in range(8))]
    for tc in range(8):
        lines += [f"tc: {tc} ratelimit: unlimited, tsa: vendor", f"\t priority:  {tc}"]
    t.w(f"mlnx_qos/{nd}", "\n".join(lines))


def model_b(name, mtu=9000, nic0=None, down1=False, slots=255, pod=False, qos=None, ips=None):
    """RoCE v2 host: mgmt NIC + 2 RDMA NICs (CX-7, Ethernet) + 2 GPUs (pairs 0/1 of A)."""
    t = Tree(name)
    t.lo()
    if not pod:
        mgmt_nic(t)
    names = []
    specs = [("mlx5_0", "ens3np0", "001c", "c000:0248", "a088:c203:0000:001c"),
             ("mlx5_1", "ens2np0", "0024", "c000:0249", "a088:c203:0000:0024")]
    if pod:
        specs = specs[:1]
    if ips:
        specs = [(ib, nd, mac, ips[k], guid) for k, (ib, nd, mac, _, guid) in enumerate(specs)]
    for k, (ib, nd, mac, ip, guid) in enumerate(specs):
        rp, usp, dsp1, dsp2, gpu, nic, nbus = pair_paths(k)
        t.bridge(rp, vendor="0x8086", device="0x352a", speed="32.0 GT/s PCIe")
        for b in (usp, dsp1, dsp2):
            t.bridge(b, speed="32.0 GT/s PCIe")
        t.endpoint(gpu, "0x10de", "0x2330", "0x030200", 0, NUMA_CPUS[0], "32.0 GT/s PCIe", 16)
        t.endpoint(nic, "0x15b3", "0x1021", "0x020000", 0, NUMA_CPUS[0], "32.0 GT/s PCIe", 16)
        gids = roce_gids_f07(mac, ip, nd, slots)
        port = roce_port(gids)
        if k == 0 and nic0 is not None:
            port = roce_port(nic0(slots))
        if k == 1 and down1:
            # [F03] mlx5_11: Down / Polling / Rate 40 / Port GUID 0 -> every gids/* all-zero.
            port = roce_port([(ZERO_GID, None, None)] * slots, state="1: DOWN", phys="2: Polling",
                             rate="40 Gb/sec (4X QDR)")
        t.rdma(nic, ib, {"node_type": "1: CA", "hca_type": "MT4129", "board_id": "MT_0000000838",
                         "fw_ver": "28.39.1002", "hw_rev": 0, "node_guid": guid, "sys_image_guid": guid}, {1: port})
        if pod:
            # In the pod's netns only eth0 and the macvlan net1 exist ([F08], [F12]).
            t.netdev(None, "eth0", 1500, "up", 10000)
            t.netdev(None, "net1", mtu, "up", None)
        elif k == 1 and down1:
            t.netdev(nic, nd, mtu, "down", -1)
        else:
            t.netdev(nic, nd, mtu, "up", 400000)
        if qos is not None:
            roce_qos(t, nic, nd, **(qos(k) or {}))
        names.append(ib)
    t.uverbs(names)
    t.peermem()
    return t


def gids_f06(slots):
    """[F06]: EUI-64 link-local 0/1, stable-privacy link-local 2/3, IPv4 192.0.2.60 at 4/5 on ens3np0."""
    nd = "ens3np0"
    l1 = "fe80:0000:0000:0000:0e42:a1ff:fe00:0018"
    l2 = "fe80:0000:0000:0000:a1b2:c3d4:e5f6:0001"
    v4 = "0000:0000:0000:0000:0000:ffff:c000:023c"
    g = [(l1, "IB/RoCE v1", nd), (l1, "RoCE v2", nd), (l2, "IB/RoCE v1", nd), (l2, "RoCE v2", nd),
         (v4, "IB/RoCE v1", nd), (v4, "RoCE v2", nd)]
    return g + [(ZERO_GID, None, None)] * (slots - len(g))


def gids_sparse_pod(slots, empty, v4, ll, nd="net1"):
    """A pod's view of a shared NIC: the other namespaces' slots 0..empty-1 empty, then IPv4 v1/v2, link-local v1/v2."""
    g = [(ZERO_GID, None, None)] * empty + [(v4, "IB/RoCE v1", nd), (v4, "RoCE v2", nd), (ll, "IB/RoCE v1", nd),
                                            (ll, "RoCE v2", nd)]
    return g + [(ZERO_GID, None, None)] * (slots - len(g))


def gids_f08(slots):
    """[F08]: slots 0-5 empty (other namespaces), 6/7 IPv4 198.51.100.1 v1/v2, 8/9 link-local v1/v2, on net1."""
    return gids_sparse_pod(slots, 6, "0000:0000:0000:0000:0000:ffff:c633:6401", "fe80:0000:0000:0000:e4ea:71ff:fe00:0010")


def gids_b5(slots):
    """NVIDIA/nccl#890 container B: its macvlan sub-interface's IPv4 GIDs at 10/11 (v1/v2), link-local 12/13 on
    net1; the other containers' slots 0-9 empty in this namespace (as B3's 0-5)."""
    return gids_sparse_pod(slots, 10, "0000:0000:0000:0000:0000:ffff:c633:6402", "fe80:0000:0000:0000:e4ea:71ff:fe00:0011")


def model_h(name):
    """NVIDIA/nccl#769: one RoCE LAG device mlx5_bond_0 whose GIDs live on bond0: 0/1 link-local v1/v2
    (fe80::ac0:ebff:feda:1cfb), 2/3 IPv4 200.0.209.6 v1/v2; 16 slots. PCI place, rate and GPU as model B's pair 0."""
    t = Tree(name)
    t.lo()
    mgmt_nic(t)
    rp, usp, dsp1, dsp2, gpu, nic, nbus = pair_paths(0)
    t.bridge(rp, vendor="0x8086", device="0x352a", speed="32.0 GT/s PCIe")
    for b in (usp, dsp1, dsp2):
        t.bridge(b, speed="32.0 GT/s PCIe")
    t.endpoint(gpu, "0x10de", "0x20b0", "0x030200", 0, NUMA_CPUS[0], "16.0 GT/s PCIe", 16)
    t.endpoint(nic, "0x15b3", "0x101d", "0x020000", 0, NUMA_CPUS[0], "16.0 GT/s PCIe", 16)
    nd = "bond0"
    ll = "fe80:0000:0000:0000:0ac0:ebff:feda:1cfb"
    v4 = "0000:0000:0000:0000:0000:ffff:c800:d106"
    gids = [(ll, "IB/RoCE v1", nd), (ll, "RoCE v2", nd), (v4, "IB/RoCE v1", nd), (v4, "RoCE v2", nd)]
    gids += [(ZERO_GID, None, None)] * (16 - len(gids))
    guid = "08c0:eb03:00da:1cfa"
    t.rdma(nic, "mlx5_bond_0", {"node_type": "1: CA", "hca_type": "MT4123", "fw_ver": "20.35.1012", "hw_rev": 0,
                                "node_guid": guid, "sys_image_guid": guid},
           {1: roce_port(gids, rate="200 Gb/sec (4X HDR)")})
    t.netdev(nic, "ens1f0np0", 9000, "up", 200000)  # the bond's first slave, the PF of the device
    t.netdev(None, nd, 9000, "up", 200000)
    t.uverbs(["mlx5_bond_0"])
    t.peermem()
    return t


def model_c(name, empty_class=False):
    """No RDMA: GPUs of pairs 0 and 4, mgmt NIC, docker0; no class/infiniband (C) or an empty one (C2)."""
    t = Tree(name)
    t.lo()
    mgmt_nic(t)
    t.netdev(None, "docker0", 1500, "down", None)
    for k in (0, 4):
        rp, usp, dsp1, dsp2, gpu, nic, nbus = pair_paths(k)
        numa = 0 if k < 4 else 1
        t.bridge(rp, vendor="0x8086", device="0x352a", numa=numa)
        for b in (usp, dsp1):
            t.bridge(b, numa=numa)
        t.endpoint(gpu, "0x10de", "0x2330", "0x030200", numa, NUMA_CPUS[numa], "32.0 GT/s PCIe", 16)
    if empty_class:
        t.mkdir("class/infiniband")
        t.w("class/infiniband_verbs/abi_version", 6)
    return t


def model_e2(name):
    """[F11]: ConnectX-6 (0x101b, MT4123) at 0000:01:00.0 directly under root port 00:01.0, 8.0 of 16.0 GT/s x16."""
    t = Tree(name)
    t.lo()
    rp = "pci0000:00/0000:00:01.0"
    t.bridge(rp, vendor="0x8086", device="0x460d", speed="16.0 GT/s PCIe", width=16, cur_speed="8.0 GT/s PCIe")
    nic = f"{rp}/0000:01:00.0"
    t.endpoint(nic, "0x15b3", "0x101b", "0x020000", 0, "0-23", "16.0 GT/s PCIe", 16, cur_speed="8.0 GT/s PCIe")
    nd = "enp1s0np0"
    ll = "fe80:0000:0000:0000:0e42:a1ff:fe00:0030"
    v4 = "0000:0000:0000:0000:0000:ffff:c000:0250"
    gids = [(ll, "IB/RoCE v1", nd), (ll, "RoCE v2", nd), (v4, "IB/RoCE v1", nd), (v4, "RoCE v2", nd)]
    gids += [(ZERO_GID, None, None)] * 12
    t.rdma(nic, "mlx5_0", {"node_type": "1: CA", "hca_type": "MT4123", "fw_ver": "20.27.0446", "hw_rev": 0,
                           "node_guid": "0c42:a103:0000:0030", "sys_image_guid": "0c42:a103:0000:0030"},
           {1: roce_port(gids, rate="200 Gb/sec (4X HDR)")})
    t.netdev(nic, nd, 1500, "up", 200000)
    t.uverbs(["mlx5_0"])
    return t


def model_e3(name):
    """gpud H100 chain: root port 15:01.0 -> PEX890xx USP 16:00.0 -> DSPs 17:01.0 (GPU 19:00.0), 17:02.0 (CX-7
    1a:00.0, IB NDR), 17:03.0 (Gen5 DSP, current 16.0) -> Gen4 CX-6 Dx 1b:00.0/.1 (RoCE 100G, [F05])."""
    t = Tree(name)
    t.lo()
    rp = "pci0000:15/0000:15:01.0"
    usp = f"{rp}/0000:16:00.0"
    t.bridge(rp, vendor="0x8086", device="0x352a")
    t.bridge(usp)
    t.bridge(f"{usp}/0000:17:01.0")
    t.bridge(f"{usp}/0000:17:02.0")
    t.bridge(f"{usp}/0000:17:03.0", cur_speed="16.0 GT/s PCIe")
    t.endpoint(f"{usp}/0000:17:01.0/0000:19:00.0", "0x10de", "0x2330", "0x030200", 0, NUMA_CPUS[0],
               "32.0 GT/s PCIe", 16)
    cx7 = f"{usp}/0000:17:02.0/0000:1a:00.0"
    t.endpoint(cx7, "0x15b3", "0x1021", "0x020700", 0, NUMA_CPUS[0], "32.0 GT/s PCIe", 16)
    t.rdma(cx7, "mlx5_0", {"node_type": "1: CA", "hca_type": "MT4129", "board_id": "MT_0000000838",
                           "fw_ver": "28.41.1000", "node_guid": "58a2:e103:0000:0000",
                           "sys_image_guid": "58a2:e103:0000:0000"},
           {1: ib_port("400 Gb/sec (4X NDR)", "0x80", "0xa751e848", gids=ib_gids("58a2:e103:0000:0000"))})
    t.netdev(cx7, "ibp26s0", 4092, "down", None, 32)
    names = ["mlx5_0"]
    for fn, (ib, nd, tail) in enumerate([("mlx5_1", "ens3f0np0", "001a"), ("mlx5_2", "ens3f1np1", "001b")]):
        cx6 = f"{usp}/0000:17:03.0/0000:1b:00.{fn}"
        t.endpoint(cx6, "0x15b3", "0x101d", "0x020000", 0, NUMA_CPUS[0], "16.0 GT/s PCIe", 16)
        ll = f"fe80:0000:0000:0000:8ae9:a4ff:fe00:{tail}"
        v4 = f"0000:0000:0000:0000:0000:ffff:c000:02{0x50 + fn:02x}"
        gids = [(ll, "IB/RoCE v1", nd), (ll, "RoCE v2", nd), (v4, "IB/RoCE v1", nd), (v4, "RoCE v2", nd)]
        gids += [(ZERO_GID, None, None)] * 12
        t.rdma(cx6, ib, {"node_type": "1: CA", "hca_type": "MT4125", "fw_ver": "22.39.1002",
                         "node_guid": f"b83f:d203:0000:002{0xc + fn:x}", "sys_image_guid": "b83f:d203:0000:002c"},
               {1: roce_port(gids, rate="100 Gb/sec (4X EDR)")})
        t.netdev(cx6, nd, 9000, "up", 100000)
        names.append(ib)
    t.uverbs(names)
    t.peermem()
    return t


def model_f(name):
    """4 A100 + 1 CX-6 HDR behind one PEX88096 switch (host model F)."""
    t = Tree(name)
    t.lo()
    rp = "pci0000:00/0000:00:01.0"
    usp = f"{rp}/0000:01:00.0"
    sp = "16.0 GT/s PCIe"
    t.bridge(rp, vendor="0x1022", device="0x1483", speed=sp)
    t.bridge(usp, device="0xc010", speed=sp)
    for i in range(5):
        t.bridge(f"{usp}/0000:02:0{i}.0", device="0xc010", speed=sp)
    for i in range(4):
        t.endpoint(f"{usp}/0000:02:0{i}.0/0000:0{3 + i}:00.0", "0x10de", "0x20b0", "0x030200", 0, "0-63", sp, 16)
    nic = f"{usp}/0000:02:04.0/0000:07:00.0"
    t.endpoint(nic, "0x15b3", "0x101b", "0x020700", 0, "0-63", sp, 16)
    t.rdma(nic, "mlx5_0", {"node_type": "1: CA", "hca_type": "MT4123", "board_id": "MT_0000000594",
                           "fw_ver": "20.37.1700", "node_guid": "88e9:a4ff:ff00:0012",
                           "sys_image_guid": "88e9:a4ff:ff00:0012"},
           {1: ib_port("200 Gb/sec (4X HDR)", "0x4", "0xa259e848", gids=ib_gids("88e9:a4ff:ff00:0012"))})
    t.netdev(nic, "ibp7s0", 4092, "down", None, 32)
    t.uverbs(["mlx5_0"])
    t.peermem()
    return t


def model_f2(name):
    """[F10]: 8 V100-SXM2 + 1 ConnectX-4 EDR; GPU2/3 PIX, GPU0/1 NODE (other host bridge, NUMA 0), GPU4-7 SYS."""
    t = Tree(name)
    t.lo()
    sp = "8.0 GT/s PCIe"
    cpus = {0: "0-11,24-35", 1: "12-23,36-47"}
    # (host bridge bus, numa, [(dsp dev, endpoint bus, kind)])
    layout = [(0x00, 0, [(0x08, 0x06, "gpu"), (0x10, 0x07, "gpu")]),
              (0x0b, 0, [(0x08, 0x0e, "gpu"), (0x10, 0x0f, "gpu"), (0x14, 0x10, "nic")]),
              (0x80, 1, [(0x08, 0x83, "gpu"), (0x10, 0x84, "gpu")]),
              (0x88, 1, [(0x08, 0x8b, "gpu"), (0x10, 0x8c, "gpu")])]
    for hb, numa, eps in layout:
        rp = f"pci0000:{hb:02x}/0000:{hb:02x}:02.0"
        usp = f"{rp}/0000:{hb + 4:02x}:00.0" if hb == 0 else f"{rp}/0000:{hb + 1:02x}:00.0"
        dbus = hb + 5 if hb == 0 else hb + 2
        t.bridge(rp, vendor="0x8086", device="0x2f04", speed=sp, numa=numa)
        t.bridge(usp, vendor="0x10b5", device="0x8747", speed=sp, numa=numa)
        for dev, ebus, kind in eps:
            dsp = f"{usp}/0000:{dbus:02x}:{dev:02x}.0"
            t.bridge(dsp, vendor="0x10b5", device="0x8747", speed=sp, numa=numa)
            ep = f"{dsp}/0000:{ebus:02x}:00.0"
            if kind == "gpu":
                t.endpoint(ep, "0x10de", "0x1db1", "0x030200", numa, cpus[numa], sp, 16)
            else:
                t.endpoint(ep, "0x15b3", "0x1013", "0x020700", numa, cpus[numa], sp, 16)
                t.rdma(ep, "mlx5_0", {"node_type": "1: CA", "hca_type": "MT4115", "fw_ver": "12.28.2006",
                                      "board_id": "MT_2180110032", "node_guid": "248a:0703:0000:0010",
                                      "sys_image_guid": "248a:0703:0000:0010"},
                       {1: ib_port("100 Gb/sec (4X EDR)", "0x7", "0x2651e848",
                                   gids=ib_gids("248a:0703:0000:0010"))})
                t.netdev(ep, "ib0", 2044, "up", None, 32)
    t.uverbs(["mlx5_0"])
    # 2020-era host: legacy Mellanox nv_peer_mem, which registers nv_mem (the peer-memory modules' history).
    t.w("module/nv_peer_mem/version", "1.0-9")
    t.w("kernel/mm/memory_peers/nv_mem/version", "1.0-9")
    return t


def iommu_group(t, group, dev_path, kind):
    """dev_path's iommu_group link and the group's devices/ entry and `type` (sysfs-kernel-iommu_groups)."""
    bdf = dev_path.split("/")[-1]
    g = f"kernel/iommu_groups/{group}"
    t.w(f"{g}/type", kind)
    t.rel_ln(f"{g}/devices/{bdf}", f"devices/{dev_path}")
    t.rel_ln(f"devices/{dev_path}/iommu_group", g)


def model_pcie(name, amd=False, acs=None, iommu=None, nic_ro=True, peermem=True):
    """Two GPU+NIC pairs, each under its own PCIe switch (PLX PEX 8747, 0x10b5:0x8747, as the PLX hosts of
    NVIDIA/nccl#304 and the V100 host of [F10]): RP -> USP -> DSP1 -> GPU (V100 0x1db1), DSP2 -> NIC (CX-5 EDR
    0x1017 MT4119, IB). Every function has a 4096-byte `config` (the root view). amd: AMD EPYC root ports
    (0x1022:0x1483) instead of Intel (0x8086:0x2f04). acs: ACS Control on the switch downstream ports (None =
    no ACS capability written = off). iommu: None (no IOMMU) or the group type of every function ("DMA-FQ",
    "identity"). nic_ro: PCI_EXP_DEVCTL_RELAX_EN on the NICs."""
    t = Tree(name)
    t.lo()
    sp = "8.0 GT/s PCIe"
    rp_vendor, rp_device = ("0x1022", "0x1483") if amd else ("0x8086", "0x2f04")
    cpus = "0-31" if amd else "0-11,24-35"
    names, group = [], 10
    if iommu:
        t.w("devices/virtual/iommu/ivhd0/uevent" if amd else "devices/virtual/iommu/dmar0/uevent", "")
        unit = "ivhd0" if amd else "dmar0"
        t.rel_ln(f"class/iommu/{unit}", f"devices/virtual/iommu/{unit}")
    t.mkdir("bus/pci/drivers/mlx5_core")
    t.mkdir("bus/pci/drivers/nvidia")
    for k, (hb, gbus, nbus) in enumerate([(0x00, 0x04, 0x05), (0x80, 0x84, 0x85)]):
        rp = f"pci0000:{hb:02x}/0000:{hb:02x}:02.0"
        usp = f"{rp}/0000:{hb + 2:02x}:00.0"
        dsp1, dsp2 = f"{usp}/0000:{hb + 3:02x}:08.0", f"{usp}/0000:{hb + 3:02x}:10.0"
        numa = k
        t.bridge(rp, vendor=rp_vendor, device=rp_device, speed=sp, numa=numa)
        t.wb(f"devices/{rp}/config", config_space(rp_vendor, rp_device, "0x060400", 4, DEVCTL_BRIDGE))
        t.bridge(usp, vendor="0x10b5", device="0x8747", speed=sp, numa=numa)
        t.wb(f"devices/{usp}/config", config_space("0x10b5", "0x8747", "0x060400", 5, DEVCTL_BRIDGE))
        for dsp in (dsp1, dsp2):
            t.bridge(dsp, vendor="0x10b5", device="0x8747", speed=sp, numa=numa)
            t.wb(f"devices/{dsp}/config", config_space("0x10b5", "0x8747", "0x060400", 6, DEVCTL_BRIDGE, acs))
        gpu, nic = f"{dsp1}/0000:{gbus:02x}:00.0", f"{dsp2}/0000:{nbus:02x}:00.0"
        t.endpoint(gpu, "0x10de", "0x1db1", "0x030200", numa, cpus, sp, 16)
        t.wb(f"devices/{gpu}/config", config_space("0x10de", "0x1db1", "0x030200", 0, DEVCTL_GPU))
        # BAR0 16 MiB, BAR1 32 GiB prefetchable 64-bit (V100-32GB: nvidia-smi "BAR1 Memory Usage Total 32768
        # MiB"), BAR3 32 MiB; one "start end flags" line per resource (pci-sysfs.c resource_show).
        b1 = 0x38000000000 + k * 0x1000000000
        lines = [(0xF2000000 + k * 0x2000000, 0xF2FFFFFF + k * 0x2000000, 0x40200),
                 (b1, b1 + 0x7FFFFFFFF, 0x14220C), (0, 0, 0),
                 (b1 + 0x800000000, b1 + 0x801FFFFFF, 0x14220C), (0, 0, 0), (0, 0, 0), (0, 0, 0)]
        t.w(f"devices/{gpu}/resource", "\n".join(f"0x{a:016x} 0x{e:016x} 0x{f:016x}" for a, e, f in lines))
        t.rel_ln(f"devices/{gpu}/driver", "bus/pci/drivers/nvidia")
        t.endpoint(nic, "0x15b3", "0x1017", "0x020700", numa, cpus, sp, 16)
        t.wb(f"devices/{nic}/config", config_space("0x15b3", "0x1017", "0x020700", 0,
                                                   DEVCTL_NIC_RO if nic_ro else DEVCTL_NIC_NO_RO))
        t.rel_ln(f"devices/{nic}/driver", "bus/pci/drivers/mlx5_core")
        guid = f"ec0d:9a03:0000:00{k}a"
        ib = f"mlx5_{k}"
        t.rdma(nic, ib, {"node_type": "1: CA", "hca_type": "MT4119", "fw_ver": "16.35.2000", "hw_rev": 0,
                         "node_guid": guid, "sys_image_guid": guid},
               {1: ib_port("100 Gb/sec (4X EDR)", hex(0x11 + k), "0x2651e84a", gids=ib_gids(guid))})
        t.netdev(nic, f"ib{k}", 2044, "up", None, 32)
        names.append(ib)
        if iommu:
            for path in (rp, usp, dsp1, dsp2, gpu, nic):
                iommu_group(t, group, path, iommu)
                group += 1
    t.uverbs(names)
    if peermem:
        t.peermem(version="550.54.15")
    return t


def proc_net(t, addrs, routes=()):
    """proc/net/fib_trie and proc/net/route of a host: addrs = [(iface, a.b.c.d, prefix)], routes = extra
    gateway routes [(iface, dest, prefix, gateway)] (formats of net/ipv4/fib_trie.c fib_trie_seq_show /
    fib_route_seq_show; route words as a little-endian host prints them; flags 0003 = RTF_UP|RTF_GATEWAY)."""
    def le_hex(dotted):
        o = [int(x) for x in dotted.split(".")]
        return f"{o[3]:02X}{o[2]:02X}{o[1]:02X}{o[0]:02X}"

    def net_of(dotted, prefix):
        v = int.from_bytes(bytes(int(x) for x in dotted.split(".")), "big")
        m = (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF
        return ".".join(str(b) for b in (v & m).to_bytes(4, "big")), ".".join(str(b) for b in m.to_bytes(4, "big"))

    trie = ["Main:", "  +-- 0.0.0.0/0 3 0 5"]
    for _, a, p in addrs:
        net, _ = net_of(a, p)
        trie += [f"     +-- {net}/{p} 2 0 2", f"        |-- {net}", f"           /{p} link UNICAST"]
    trie += ["Local:", "  +-- 0.0.0.0/0 3 0 5"]
    for _, a, p in addrs:
        trie += [f"     |-- {a}", "        /32 host LOCAL"]
    trie += ["     +-- 127.0.0.0/8 2 0 2", "        |-- 127.0.0.1", "           /32 host LOCAL"]
    route = ["Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"]
    first = addrs[0]
    gw = first[1].rsplit(".", 1)[0] + ".1"
    route.append(f"{first[0]}\t00000000\t{le_hex(gw)}\t0003\t0\t0\t100\t00000000\t0\t0\t0")
    for iface, a, p in addrs:
        net, mask = net_of(a, p)
        route.append(f"{iface}\t{le_hex(net)}\t00000000\t0001\t0\t0\t0\t{le_hex(mask)}\t0\t0\t0")
    for iface, dest, p, gw in routes:
        _, mask = net_of(dest, p)
        route.append(f"{iface}\t{le_hex(dest)}\t{le_hex(gw)}\t0003\t0\t0\t0\t{le_hex(mask)}\t0\t0\t0")
    t.w("proc/net/fib_trie", "\n".join(trie))
    t.w("proc/net/route", "\n".join(route))


def model_docker(name, data_ip):
    """open-mpi/ompi#6377 / #4963: a node with its data Ethernet (here eno1), docker0 172.17.0.1/16 (NO-CARRIER
    but UP: flags 0x1003) and libvirt's virbr0 192.168.122.1/24 (UP), MPI defaults; proc/ holds fib_trie and
    route for --proc-root."""
    t = Tree(name)
    t.lo()
    mgmt_nic(t)
    t.w("class/net/eno1/flags", "0x1003")  # IFF_UP|IFF_BROADCAST|IFF_MULTICAST
    t.netdev(None, "docker0", 1500, "down", None)
    t.w("devices/virtual/net/docker0/flags", "0x1003")
    t.netdev(None, "virbr0", 1500, "down", None)
    t.w("devices/virtual/net/virbr0/flags", "0x1003")
    proc_net(t, [("eno1", data_ip, 24), ("docker0", "172.17.0.1", 16), ("virbr0", "192.168.122.1", 24)])
    return t


def gids_vlan_down(slots):
    """nccl-tests#185 rebuilt: mlx5_0's link-local GIDs 0/1 on ens3np0, its IPv4 GIDs 2/3 (192.0.2.72) on the
    VLAN ens3np0.100 (an upper device: its GIDs stay in the table while it is down; the port itself is
    ACTIVE)."""
    ll = "fe80:0000:0000:0000:a288:c2ff:fe00:001c"
    v4 = "0000:0000:0000:0000:0000:ffff:c000:0248"
    g = [(ll, "IB/RoCE v1", "ens3np0"), (ll, "RoCE v2", "ens3np0"), (v4, "IB/RoCE v1", "ens3np0.100"),
         (v4, "RoCE v2", "ens3np0.100")]
    return g + [(ZERO_GID, None, None)] * (slots - len(g))


def model_vlan_down(name):
    """A RoCE host (model B) whose NCCL GID (index 3) belongs to a VLAN netdev that is down (flags 0x1002:
    IFF_BROADCAST|IFF_MULTICAST without IFF_UP); no fib entry for its address (the kernel drops a down
    interface's routes)."""
    t = model_b(name, nic0=gids_vlan_down, slots=16)
    t.w("class/net/ens3np0/flags", "0x1003")
    t.netdev(None, "ens3np0.100", 9000, "down", None)
    t.w("devices/virtual/net/ens3np0.100/flags", "0x1002")
    proc_net(t, [("eno1", "203.0.113.35", 24), ("ens2np0", "192.0.2.73", 24)])
    return t


def model_l3_rail(name, host, routed):
    """An L3 (routed) rail design: each rail NIC in its own /29 per host, rail r of every host reachable only
    through that rail's gateway (route 198.51.100.0/26 rail 0, .64/26 rail 1). host: 1 or 2 (addresses .10/.74
    or .18/.82); routed: the rail routes are there (False: only the connected /29s and eno1's default route, so
    the peers' GID addresses have no route out of the RoCE netdevs)."""
    ips = ("c633:640a", "c633:644a") if host == 1 else ("c633:6412", "c633:6452")
    t = model_b(name, slots=16, ips=ips)
    a0, a1 = ("198.51.100.10", "198.51.100.74") if host == 1 else ("198.51.100.18", "198.51.100.82")
    gw0, gw1 = ("198.51.100.9", "198.51.100.73") if host == 1 else ("198.51.100.17", "198.51.100.81")
    routes = [("ens3np0", "198.51.100.0", 26, gw0), ("ens2np0", "198.51.100.64", 26, gw1)] if routed else []
    proc_net(t, [("eno1", f"203.0.113.{10 + host}", 24), ("ens3np0", a0, 29), ("ens2np0", a1, 29)], routes)
    return t


def main():
    model_a("a-ib-ndr-8rail")
    model_a("a2-ib-hdr-8rail", hdr=True)
    model_b("b-roce-2nic")
    model_b("b2-roce-gid-ipv4-at-4-5", nic0=gids_f06, slots=16)
    model_b("b3-roce-sparse-gid-pod", nic0=gids_f08, slots=16, pod=True)
    model_b("b4-roce-mtu1500", mtu=1500, slots=16)
    model_b("b5-roce-sparse-gid-pod-at-11", nic0=gids_b5, slots=16, pod=True)
    model_h("h-roce-bond-gid0-linklocal")
    model_c("c-no-rdma")
    model_c("c2-no-rdma-empty-class", empty_class=True)

    def down_polling(t, k, info):
        if k == 3:  # leptonai/gpud#482 ibstat Down/Polling/Rate 10; [F01] lid 65535
            info["port"] = ib_port("10 Gb/sec (4X SDR)", "0xffff", "0xa751e848", state="1: DOWN",
                                   phys="2: Polling", sm_lid="0x0", gids=info["port"]["gids"])

    def down_disabled(t, k, info):
        if k == 3:  # [F01] mlx5_1: PORT_DOWN, phys DISABLED, lid 65535, sm_lid 0
            info["port"] = ib_port("10 Gb/sec (4X SDR)", "0xffff", "0xa751e848", state="1: DOWN",
                                   phys="3: Disabled", sm_lid="0x0", gids=info["port"]["gids"])

    def x8(t, k, info):
        if k == 2:  # NIC 0000:4d:00.0 trained to x8 of x16
            info["nic_cur_width"] = 8

    def gpu_idle(t, k, info):
        if k == 0:  # idle GPU 0000:19:00.0 at 2.5 GT/s, width 16/16
            info["gpu_cur_speed"] = "2.5 GT/s PCIe"

    model_a("d-ib-port-down-polling", mutate=down_polling)
    model_a("d2-ib-port-disabled", mutate=down_disabled)
    model_b("d3-roce-port-down", down1=True, slots=16)
    model_a("e-nic-pcie-x8", mutate=x8)
    model_e2("e2-nic-pcie-gen3")
    model_e3("e3-gen4-nic-under-gen5-switch")
    model_a("e4-gpu-idle-speed", mutate=gpu_idle)
    model_f("f-4gpu-share-1nic")
    model_f2("f2-8gpu-1nic-v100")
    model_a("g-peermem-without-memory-peers", hdr=True, pairs=range(2), memory_peers=False)
    model_pcie("h-acs-redirect-plx", acs=ACS_CTRL_REDIRECT, iommu="identity")
    model_pcie("h2-acs-off-plx", acs=0x0000, iommu="identity")
    model_pcie("i-iommu-translated", acs=0x0000, iommu="DMA-FQ")
    model_pcie("j-amd-relaxed-ordering-off", amd=True, acs=0x0000, iommu="identity", nic_ro=False)
    model_docker("k-docker0-virbr0-host1", "198.51.100.11")
    model_docker("k2-docker0-virbr0-host2", "198.51.100.12")
    model_a("l-no-peer-memory", hdr=True, pairs=range(2), peermem=False)
    # RoCE lossless configuration; mlx5_1 (ens2np0) is correct in each, mlx5_0 (ens3np0) varies
    model_b("m-roce-lossless-correct", slots=16, qos=lambda k: {})
    model_b("m2-roce-pfc-off", slots=16, qos=lambda k: {"pfc": (), "ecn": ()} if k == 0 else {})
    model_b("m3-roce-ecn-off", slots=16, qos=lambda k: {"ecn": ()} if k == 0 else {})
    model_b("m4-roce-dscp-map-elsewhere", slots=16, qos=lambda k: {"dscp_map": {26: 0}} if k == 0 else {})
    # NCCL's connection errors tied to the GID's netdev and its routes
    model_vlan_down("n-roce-gid-vlan-down")
    model_l3_rail("n2-roce-l3-rail-no-route", 1, routed=False)
    model_l3_rail("n3-roce-l3-rail-peer", 2, routed=True)
    model_l3_rail("n4-roce-l3-rail-routed", 1, routed=True)


if __name__ == "__main__":
    main()
