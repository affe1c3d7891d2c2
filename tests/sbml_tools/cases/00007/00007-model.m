(*

category:      Test
synopsis:      No model
componentTags: Compartment, Species, Reaction, Parameter
testTags:      Amount
testType:      TimeCourse
levels:        3.2
generatedBy:   Analytic

*)
