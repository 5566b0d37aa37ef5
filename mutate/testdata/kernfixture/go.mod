module kernfixture

go 1.26.0

require gathermut v0.0.0

replace gathermut => ../../..
