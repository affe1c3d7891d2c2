(*

category:      Test
synopsis:      First-order decay, closed form
componentTags: Compartment, Species, Reaction, Parameter
testTags:      Amount
testType:      TimeCourse
levels:        3.2
generatedBy:   Analytic

*)
