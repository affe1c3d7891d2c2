(*

category:      Test
synopsis:      First-order decay, wrong expected value at t = 1
componentTags: Compartment, Species, Reaction, Parameter
testTags:      Amount
testType:      TimeCourse
levels:        3.2
generatedBy:   Analytic

*)
