#pragma once
/// Autodiff of dynamic-shape graphs (SymInt placeholders, symbolic annotations).
///
/// VJP rules and decompositions work on static sizes. A symbolic forward graph is therefore
/// traced at three "probe" bindings of its symbols (distinct primes, far apart, so that a size's
/// value says which symbols it is made of and sizes divided down by strided convolutions still
/// differ); the three joint graphs must agree node for node, and every integer argument and
/// every size or stride that differs between them is matched against a monomial
/// (`128*s27*s77`, `s53**2`), one of the forward's own symbolic texts (`((s53 - 1)//2) + 1`), or
/// an affine form (`s0 - 1`). The first probe's joint graph is kept with those integers replaced
/// by SymInt nodes (`operator.mul` of the Sym primals, `aten.sym_size.int` of a tensor primal)
/// and its annotations made symbolic, so one joint graph runs at every size. It is then checked
/// against the joint graph traced at a fourth binding: a size the probes saw as constant that is
/// not (clamped to a table's length) fails there, and the trace is retried at small probes.
#include "autodiff/joint_builder.h"
#include "ir/sym_expr.h"

#include <cstdint>
#include <map>
#include <string>

namespace fxray {

/// Source node name -> its SymInt value at the binding traced.
using SymValues = std::map<std::string, sym::Num>;

/// The joint graph of a symbolic forward graph (see above). Fails naming the node when the
/// joint graphs of the probes differ or a size is no monomial or affine form of the symbols.
Expected<JointGraph> buildSymbolicJoint(const Graph& forward, const JointOptions& opts);

/// buildJointGraph on a forward graph whose tensor sizes are static and whose SymInt nodes
/// (named in `symValues`) are traced as those integers.
Expected<JointGraph> buildJointGraphAt(const Graph& forward, const JointOptions& opts, const SymValues& symValues);

}  // namespace fxray
