;; The cases of the task "refunds" (evals.go), in PTC-Lisp, as an agent
;; file's cases are written (docs/evals.md, "Test cases").
[{:name "alice"   :input {:customer "alice"} :expect {:refunded 40.0 :orders [3]}}
 {:name "carol"   :input {:customer "carol"} :subset {:orders [6 7]}
  :check (fn [r] (= 30.0 (:refunded r)))}
 {:name "bob"     :input {:customer "bob"}   :expect {:refunded 0 :orders []}}
 {:name "unknown" :input {:customer "zed"}   :fails :not_found}]
