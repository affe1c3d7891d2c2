(*

category:      Test
synopsis:      Decay with a delayed rate (the delay csymbol)
componentTags: Compartment, Species, Reaction, Parameter, CSymbolDelay
testTags:      Amount
testType:      TimeCourse
levels:        3.2
generatedBy:   Analytic

*)
