// Package samplers is the registry of the samplers a study may name: New
// builds one by name over a space, seeded, decorated by the simulator
// prior when one is given and the sampler does not keep its own order
// (PriorGuides), and taught a resumed study's history; Check says whether
// a name exists and can serve a study's objectives; Names lists them in
// the order users see. It is the one package above the sampler families
// (search/motpe, search/goptuna, search/grid, search/modelfree) and the
// prior (search/prior), which import neither it nor each other.
package samplers
