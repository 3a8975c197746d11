#pragma once
// The `inputs` condition (docs/user-guide.md "Conditions held fixed", DESIGN.md section 3): whether the model's
// inputs differ, from the run manifests' inputs when both sides list them, else from the ops' input-shape
// lists. Inputs differ only where an op's lists are replaced; lists that only appear or only disappear
// are a code change (new or removed call sites), named in the row's note and compared as ops.

#include "compare/conditions.hpp"

namespace neuron_gate {

// The inputs row of the conditions table: base and head text, matches, and a note naming replaced lists
// or new/removed call sites. When neither the manifests state inputs nor any op with shapes is on both
// sides, a row that does not block but is not verified ("unknown"): a change of shapes or dtypes would go
// unseen, and the context line says "inputs unknown".
ConditionRow inputs_row(const Fingerprint& base, const Fingerprint& head);

}  // namespace neuron_gate
