// PCI config-space decoding (pcie_config.hpp). Offsets and masks: include/uapi/linux/pci_regs.h.
#include "fabcheck/probes/pcie_config.hpp"

#include <set>

namespace fabcheck::probes {

namespace {

constexpr std::size_t kStatus = 0x06;           // PCI_STATUS
constexpr int kStatusCapList = 0x10;            // PCI_STATUS_CAP_LIST
constexpr std::size_t kCapabilityList = 0x34;   // PCI_CAPABILITY_LIST
constexpr int kCapIdExp = 0x10;                 // PCI_CAP_ID_EXP
constexpr std::size_t kExpFlags = 2;            // PCI_EXP_FLAGS
constexpr int kExpFlagsType = 0x00f0;           // PCI_EXP_FLAGS_TYPE
constexpr std::size_t kExpDevcap = 4;           // PCI_EXP_DEVCAP
constexpr int kDevcapPayload = 0x07;            // PCI_EXP_DEVCAP_PAYLOAD
constexpr std::size_t kExpDevctl = 8;           // PCI_EXP_DEVCTL
constexpr int kDevctlRelaxEn = 0x0010;          // PCI_EXP_DEVCTL_RELAX_EN
constexpr int kDevctlPayload = 0x00e0;          // PCI_EXP_DEVCTL_PAYLOAD
constexpr int kDevctlReadrq = 0x7000;           // PCI_EXP_DEVCTL_READRQ
constexpr std::size_t kCfgSpaceSize = 256;      // PCI_CFG_SPACE_SIZE: extended capabilities start here
constexpr std::size_t kCfgSpaceExpSize = 4096;  // PCI_CFG_SPACE_EXP_SIZE
constexpr int kExtCapIdAcs = 0x000d;            // PCI_EXT_CAP_ID_ACS
constexpr std::size_t kAcsCap = 0x04;           // PCI_ACS_CAP
constexpr std::size_t kAcsCtrl = 0x06;          // PCI_ACS_CTRL

int cfg_u8(const std::vector<std::uint8_t>& c, std::size_t off) {
  return c[off];
}

int cfg_u16(const std::vector<std::uint8_t>& c, std::size_t off) {
  return c[off] | (c[off + 1] << 8);  // config space is little-endian (PCIe r5.0 §7.2)
}

std::uint32_t cfg_u32(const std::vector<std::uint8_t>& c, std::size_t off) {
  return static_cast<std::uint32_t>(cfg_u16(c, off)) |
         (static_cast<std::uint32_t>(cfg_u16(c, off + 2)) << 16);
}

/// Offset of the Express capability in the standard list (PCIe r5.0 §7.5.3), 0 when absent or unreadable.
std::size_t find_express_cap(const std::vector<std::uint8_t>& c) {
  if (c.size() < kCfgSpaceSize || !(cfg_u16(c, kStatus) & kStatusCapList)) return 0;
  std::set<std::size_t> seen;
  std::size_t pos = cfg_u8(c, kCapabilityList) & ~3u;
  while (pos >= 0x40 && pos + 2 <= kCfgSpaceSize && seen.insert(pos).second) {
    if (cfg_u8(c, pos) == kCapIdExp) return pos;
    pos = cfg_u8(c, pos + 1) & ~3u;
  }
  return 0;
}

/// Offset of the ACS extended capability (PCIe r5.0 §7.7.8), 0 when absent.
std::size_t find_acs_cap(const std::vector<std::uint8_t>& c) {
  std::set<std::size_t> seen;
  std::size_t pos = kCfgSpaceSize;
  while (pos >= kCfgSpaceSize && pos + 8 <= kCfgSpaceExpSize && seen.insert(pos).second) {
    std::uint32_t header = cfg_u32(c, pos);
    if (header == 0 || header == 0xffffffffu) return 0;  // no extended capabilities / not readable
    if ((header & 0xffff) == kExtCapIdAcs) return pos;
    pos = (header >> 20) & 0xffc;  // PCI_EXT_CAP_NEXT
  }
  return 0;
}

}  // namespace

model::PcieConfig parse_pcie_config(const std::vector<std::uint8_t>& config) {
  model::PcieConfig out;
  out.config_bytes = static_cast<int>(config.size());
  if (std::size_t exp = find_express_cap(config); exp != 0 && exp + kExpDevctl + 2 <= kCfgSpaceSize) {
    out.express_port_type = (cfg_u16(config, exp + kExpFlags) & kExpFlagsType) >> 4;
    out.max_payload_supported_bytes = 128 << (cfg_u32(config, exp + kExpDevcap) & kDevcapPayload);
    const int devctl = cfg_u16(config, exp + kExpDevctl);
    out.devctl = devctl;
    out.relaxed_ordering = (devctl & kDevctlRelaxEn) != 0;
    out.max_payload_bytes = 128 << ((devctl & kDevctlPayload) >> 5);
    out.max_read_request_bytes = 128 << ((devctl & kDevctlReadrq) >> 12);
  }
  if (config.size() >= kCfgSpaceExpSize) {
    out.extended_read = true;
    if (std::size_t acs = find_acs_cap(config); acs != 0) {
      out.acs_cap = cfg_u16(config, acs + kAcsCap);
      out.acs_ctrl = cfg_u16(config, acs + kAcsCtrl);
    }
  }
  return out;
}

}  // namespace fabcheck::probes
