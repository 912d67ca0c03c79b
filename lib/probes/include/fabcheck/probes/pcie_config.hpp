#pragma once
/// @file PCI config-space decoding: the Express capability's Device Control and Device
/// Capabilities registers and the ACS extended capability, from the bytes of a function's sysfs `config`
/// file. Register layout: PCI Express Base Specification r5.0, §7.5.3 (PCI Express Capability Structure;
/// Device Capabilities §7.5.3.3, Device Control §7.5.3.4) and §7.7.8 (ACS Extended Capability; ACS Capability
/// §7.7.8.2, ACS Control §7.7.8.3); names and offsets as Linux's include/uapi/linux/pci_regs.h spells them
/// (PCI_CAPABILITY_LIST, PCI_CAP_ID_EXP, PCI_EXP_FLAGS_TYPE, PCI_EXP_DEVCAP_PAYLOAD, PCI_EXP_DEVCTL_*,
/// PCI_EXT_CAP_ID_ACS, PCI_ACS_CAP, PCI_ACS_CTRL). No I/O here: the parser is pure and unit-tested on
/// hand-built bytes.
#include <cstdint>
#include <vector>

#include "fabcheck/model/inventory.hpp"

namespace fabcheck::probes {

/// Decodes what `config` (the file's bytes, as many as it gave) holds. A file of 64 bytes (an unprivileged
/// read) yields only `config_bytes`; a malformed capability list (a pointer loop, a pointer out of range)
/// stops the walk at that point and leaves the registers it did not reach nullopt. Never throws.
model::PcieConfig parse_pcie_config(const std::vector<std::uint8_t>& config);

}  // namespace fabcheck::probes
