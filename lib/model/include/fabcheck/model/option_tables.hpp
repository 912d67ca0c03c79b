#pragma once
/// @file The option table of every probe (DESIGN §7): one definition of each flag and config key.
/// Kept apart from the Options structs so that the measurement code, which includes those, does not compile
/// the tables' JSON machinery.
#include "fabcheck/model/option_table.hpp"
#include "fabcheck/model/options_incast.hpp"
#include "fabcheck/model/options_inventory.hpp"
#include "fabcheck/model/options_latency.hpp"
#include "fabcheck/model/options_nics.hpp"
#include "fabcheck/model/options_overlap.hpp"
#include "fabcheck/model/options_pairs.hpp"
#include "fabcheck/model/options_scaling.hpp"
#include "fabcheck/model/options_step.hpp"
#include "fabcheck/model/options_sweep.hpp"

namespace fabcheck::model {

/// The option table of `fabcheck sweep` and of the `sweep` section of a config.
const OptionTable<SweepOptions>& sweep_option_table();

/// The option table of `fabcheck latency` and of the `latency` section of a config.
const OptionTable<LatencyOptions>& latency_option_table();

/// The option table of `fabcheck pairs` and of the `pairs` section of a config.
const OptionTable<PairsOptions>& pairs_option_table();

/// The option table of `fabcheck nics` and of the `nics` section of a config.
const OptionTable<NicsOptions>& nics_option_table();
/// The option table of `fabcheck overlap` and of the `overlap` section of a config.
const OptionTable<OverlapOptions>& overlap_option_table();
/// The option table of `fabcheck step` and of the `step` section of a config.
const OptionTable<TrainStepOptions>& step_option_table();

/// The option table of `fabcheck incast` and of the `incast` section of a config.
const OptionTable<IncastOptions>& incast_option_table();

/// The option table of `fabcheck scaling` and of the `scaling` section of a config.
const OptionTable<ScalingOptions>& scaling_option_table();

/// The option table of `fabcheck inspect` and of the `inspect` section of a config.
const OptionTable<InventoryOptions>& inventory_option_table();

}  // namespace fabcheck::model
