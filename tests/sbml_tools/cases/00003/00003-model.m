(*

category:      Test
synopsis:      A flux-balance case
componentTags: Compartment, Species, Reaction, Parameter
testTags:      Amount
testType:      FluxBalanceSteadyState
levels:        3.2
generatedBy:   Analytic

*)
