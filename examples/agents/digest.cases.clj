;; The test cases of digest.md, for "ptc test examples/agents --model REF".
;; Each :input goes over the agent file's context (articles.json).
[{:name "the Go toolchain"
  :subset {:count 4 :sources ["example-blog" "example-news" "go.dev"]}
  :check (fn [r] (let [words (count (str/split (str/trim (:digest r)) #"\s+"))]
                   (and (<= 15 words 80) (not (str/includes? (:digest r) "{")))))}
 {:name "another topic, the same articles"
  :input {:topic "Go releases"}
  :subset {:count 4}
  :check (fn [r] (= (:sources r) (sort (distinct (:sources r)))))}]
