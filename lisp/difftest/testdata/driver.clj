;; Differential-test driver: evaluates every program of a corpus in Clojure
;; and prints one result per line, in corpus order.
;;
;; Usage: clojure driver.clj CORPUS.edn [NAMES.txt]
;;
;; CORPUS.edn is a vector of maps {:id "clj:..." :src "..."}. Each program is
;; read and evaluated form by form in a sandbox namespace (which refers
;; clojure.core and aliases str/string to clojure.string and set to
;; clojure.set), on a worker thread with a 2 s timeout; its println output
;; is discarded. After each program the sandbox's mappings are restored, so
;; def/defn cannot leak into the next program. Output lines:
;;
;;   <id> TAB ok TAB <value>          the value of the last form, pr-str'd
;;   <id> TAB error TAB <Class>: <message>
;;
;; Before printing, values are converted to plain EDN that the Go side's
;; lisp.ReadData reads:
;;   lazy seqs, lists, ranges -> realized (printed as (...), read as
;;                               lists), at most 100,000 items in all
;;   map entries         -> vectors
;;   characters          -> one-character strings
;;   ratios              -> the string "#ratio 1/3"
;;   BigInt / BigInteger -> a long when it fits, else "#bigint 123..."
;;   BigDecimal          -> "#bigdec 1.5"
;;   Float               -> the double that prints alike (1.1f -> 1.1)
;;   Integer, Short ...  -> long
;;   symbols             -> "#symbol name"
;;   classes             -> "#class java.lang.Long"
;;   keywords that do not read back (:a b) -> "#keyword a b"
;;   regex patterns      -> "#regex <source>"
;;   functions           -> "#fn"
;;   vars                -> "#var <name>"   (no namespace)
;;   other objects       -> "#object <class>"
;;
;; When NAMES.txt is given (one builtin name a line), the driver first prints,
;; for each name, a line "#name <name> TAB <kind>", where kind says how
;; Clojure resolves it: core (clojure.core), string (only as
;; clojure.string/<name>), set (only as clojure.set/<name>), qualified
;; (a resolvable ns/name), java (a Java static member) or missing.

(ns difftest.driver
  (:require [clojure.edn :as edn]
            [clojure.string]
            [clojure.set]
            [clojure.data]
            [clojure.zip]))

(set! *warn-on-reflection* false)

(def ^:const timeout-ms 2000)
(def ^:const max-items 100000)

(defn- too-large []
  (throw (ex-info "result too large to compare" {})))

(defn- readable-keyword? [k]
  (try (= k (edn/read-string (str k))) (catch Exception _ false)))

(defn- convert
  "Converts a result to plain EDN data; budget is an atom counting items."
  [x budget]
  (letfn [(tick [] (when (neg? (swap! budget dec)) (too-large)))
          (conv [x]
            (cond
              (nil? x) nil
              (or (boolean? x) (string? x)) x
              (keyword? x) (if (readable-keyword? x) x (str "#keyword " (subs (str x) 1)))
              (instance? Long x) x
              (instance? Double x) x
              (instance? Float x) (Double/parseDouble (str x))
              (or (instance? Integer x) (instance? Short x) (instance? Byte x)) (long x)
              (or (instance? clojure.lang.BigInt x) (instance? java.math.BigInteger x))
              (let [b (bigint x)]
                (if (<= Long/MIN_VALUE b Long/MAX_VALUE) (long b) (str "#bigint " b)))
              (ratio? x) (str "#ratio " x)
              (decimal? x) (str "#bigdec " x)
              (char? x) (str x)
              (symbol? x) (str "#symbol " x)
              (class? x) (str "#class " (.getName ^Class x))
              (instance? java.util.regex.Pattern x) (str "#regex " (.pattern ^java.util.regex.Pattern x))
              (var? x) (str "#var " (.sym ^clojure.lang.Var x))
              (map? x) (persistent!
                        (reduce-kv (fn [m k v] (tick) (assoc! m (conv k) (conv v)))
                                   (transient {}) x))
              (set? x) (persistent!
                        (reduce (fn [s v] (tick) (conj! s (conv v))) (transient #{}) x))
              (vector? x) (mapv (fn [v] (tick) (conv v)) x)
              (or (seq? x) (sequential? x))
              (loop [s (seq x) acc (transient [])]
                (if s
                  (do (tick) (recur (next s) (conj! acc (conv (first s)))))
                  (apply list (persistent! acc))))
              (fn? x) "#fn"
              :else (str "#object " (.getName (class x)))))]
    (conv x)))

(defn- root-cause [^Throwable t]
  (loop [t t]
    (let [c (.getCause t)]
      (if (and c (or (instance? clojure.lang.Compiler$CompilerException t)
                     (instance? java.util.concurrent.ExecutionException t)))
        (recur c)
        t))))

(defn- one-line [s]
  (-> (str s) (clojure.string/replace #"[\r\n\t]+" " ") (subs 0 (min 200 (count (str s))))))

(defn- describe-error [^Throwable t]
  (let [t (root-cause t)]
    (str (.getSimpleName (class t)) ": " (one-line (.getMessage t)))))

(def ^:private sandbox
  "The namespace every program runs in. It is restored to its initial
  mappings after each program, which is much cheaper than creating a
  namespace per program."
  (let [ns (create-ns 'difftest.sandbox)]
    (binding [*ns* ns]
      (refer-clojure)
      (alias 'str 'clojure.string)
      (alias 'string 'clojure.string)
      (alias 'set 'clojure.set))
    ns))

(def ^:private initial-mappings (ns-map sandbox))

(defn- restore-sandbox!
  "Undoes what a program did to the sandbox: vars it interned (def, defn,
  declare) and core names it shadowed."
  []
  (doseq [[sym v] (ns-map sandbox)
          :let [orig (get initial-mappings sym)]
          :when (not (identical? v orig))]
    (ns-unmap sandbox sym)
    (cond
      (var? orig) (.refer ^clojure.lang.Namespace sandbox sym orig)
      (class? orig) (.importClass ^clojure.lang.Namespace sandbox sym orig))))

(defn- eval-program
  "Evaluates src in the sandbox; returns [:ok printed] or [:error text]."
  [src]
  (try
    (let [rdr (clojure.lang.LineNumberingPushbackReader. (java.io.StringReader. src))
          eof (Object.)
          value (binding [*ns* sandbox *read-eval* false]
                  (loop [v nil]
                    (let [form (read rdr false eof)]
                      (if (identical? form eof)
                        v
                        (recur (eval form))))))]
      [:ok (binding [*print-length* nil *print-level* nil
                     *print-namespace-maps* false *print-meta* false *print-dup* false]
             (pr-str (convert value (atom max-items))))])
    (catch Throwable t [:error (describe-error t)])))

(defn- new-worker []
  (java.util.concurrent.Executors/newSingleThreadExecutor
   (reify java.util.concurrent.ThreadFactory
     (newThread [_ r]
       (doto (Thread. nil r "difftest-program" (* 64 1024 1024))
         (.setDaemon true))))))

(def ^:private worker (atom (new-worker)))
(def ^:private worker-thread (atom nil))

(defn- run-with-timeout
  "Runs one program on the worker thread, with a timeout. A program that
  times out is stopped (Thread.stop, still available in Java 17) and the
  worker replaced."
  [src]
  (let [out (java.io.StringWriter.)
        task (fn []
               (reset! worker-thread (Thread/currentThread))
               (binding [*out* out *err* out]
                 (eval-program src)))
        fut (.submit ^java.util.concurrent.ExecutorService @worker ^java.util.concurrent.Callable task)]
    (try
      (.get fut timeout-ms java.util.concurrent.TimeUnit/MILLISECONDS)
      (catch java.util.concurrent.TimeoutException _
        (.cancel fut true)
        (try (.stop ^Thread @worker-thread) (catch Throwable _ nil))
        (.shutdownNow ^java.util.concurrent.ExecutorService @worker)
        (reset! worker (new-worker))
        [:error (str "Timeout: no result within " timeout-ms " ms")])
      (finally (restore-sandbox!)))))

(defn- java-member?
  "Whether the Java class java.lang.<cls> has a public static method or field <member>."
  [cls member]
  (try
    (let [c (Class/forName (str "java.lang." cls))
          static? (fn [^java.lang.reflect.Member m]
                    (java.lang.reflect.Modifier/isStatic (.getModifiers m)))]
      (boolean (or (some #(and (static? %) (= member (.getName ^java.lang.reflect.Method %))) (.getMethods c))
                   (some #(and (static? %) (= member (.getName ^java.lang.reflect.Field %))) (.getFields c)))))
    (catch ClassNotFoundException _ false)))

(defn- classify [name]
  (let [s (symbol name)
        resolves? (fn [sym] (try (some? (resolve sym)) (catch Throwable _ false)))]
    (cond
      (and (namespace s) (java-member? (namespace s) (clojure.core/name s))) "java"
      (namespace s) (if (resolves? s) "qualified" "missing")
      (ns-resolve 'clojure.core s) "core"
      (ns-resolve 'clojure.string s) "string"
      (ns-resolve 'clojure.set s) "set"
      :else "missing")))

(defn -main [corpus-path & [names-path]]
  (let [w (java.io.PrintWriter. (java.io.OutputStreamWriter. System/out "UTF-8") false)
        corpus (edn/read-string (slurp corpus-path :encoding "UTF-8"))]
    (when names-path
      (doseq [n (clojure.string/split-lines (slurp names-path :encoding "UTF-8"))
              :when (not (clojure.string/blank? n))]
        (.print w (str "#name " n "\t" (binding [*ns* (the-ns 'difftest.driver)] (classify n)) "\n"))))
    (doseq [{:keys [id src]} corpus]
      (let [[status text] (run-with-timeout src)]
        (.print w (str id "\t" (name status) "\t" text "\n"))))
    (.flush w)
    (shutdown-agents)
    (System/exit 0)))

(apply -main *command-line-args*)
