#pragma once
/// @file The `incast` report section (DESIGN §6) and its console table.
#include <string>

#include "fabcheck/model/incast.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Fills `incast` (one entry per receiver, fan-in and size) and adds the incast findings: INCAST_NOT_LOADED
/// (info: no fan-in congested the receiver link, so the result says nothing about incast), INCAST_COLLAPSE
/// (warn: incast_efficiency < 0.5), VICTIM_CONGESTION (warn: the victim's median rose ≥ 3× during bursts),
/// INCAST_RELEASE_SKEW (info: release skew ≥ 10 % of the burst time), INCAST_NOT_FABRIC (info: one host).
/// Also sets run.sections.incast to ok.
void add_incast(Document& doc, const model::IncastResult& r);

/// Console text: one table per receiver (k, S, goodput, efficiency, fairness, victim p50/p99 isolated and
/// congested, impact), then the notes.
std::string render_incast(const model::IncastResult& r);

}  // namespace fabcheck::report
