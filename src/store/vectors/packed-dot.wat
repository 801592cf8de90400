;; Dot products of one query with many packed vectors (src/store/vectors/layout.ts: a vector is a little-endian
;; float32 scale, then `dim` signed bytes). The query comes as `dim` int16 (its components over its largest one's
;; Q-th, packed-dot.ts chooses Q so that no sum can overflow an i32), padded with zeros to a multiple of 8.
;; Eight components a step: i16x8 of the vector's bytes (v128.load8x8_s) times the query's, pairs summed into an
;; i32x4 (i32x4.dot_i16x8_s); the components past the last multiple of 8 one at a time. Each score, written to
;; `out` as float32: sum × query scale × vector scale, multiplied in float64.
;;
;; Assembled by `npm run build:wasm` (scripts/assemble-wasm.ts) into packed-dot.wasm.ts; a test checks the two agree.
(module
  (memory (export "memory") 1)
  (func (export "score")
    (param $vecs i32) (param $n i32) (param $dim i32) (param $query i32) (param $qscale f64) (param $out i32)
    (local $r i32) (local $base i32) (local $d i32) (local $end i32) (local $sum i32) (local $acc v128)
    (local $stride i32)
    (local.set $stride (i32.add (local.get $dim) (i32.const 4)))
    (local.set $end (i32.and (local.get $dim) (i32.const -8)))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $r) (local.get $n)))
        (local.set $base (i32.add (local.get $vecs) (i32.mul (local.get $r) (local.get $stride))))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $d (i32.const 0))
        (block $lanes_done
          (loop $lanes
            (br_if $lanes_done (i32.ge_u (local.get $d) (local.get $end)))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (v128.load8x8_s offset=4 (i32.add (local.get $base) (local.get $d)))
                  (v128.load (i32.add (local.get $query) (i32.shl (local.get $d) (i32.const 1)))))))
            (local.set $d (i32.add (local.get $d) (i32.const 8)))
            (br $lanes)))
        (local.set $sum
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (block $rest_done
          (loop $rest
            (br_if $rest_done (i32.ge_u (local.get $d) (local.get $dim)))
            (local.set $sum
              (i32.add (local.get $sum)
                (i32.mul
                  (i32.load8_s offset=4 (i32.add (local.get $base) (local.get $d)))
                  (i32.load16_s (i32.add (local.get $query) (i32.shl (local.get $d) (i32.const 1)))))))
            (local.set $d (i32.add (local.get $d) (i32.const 1)))
            (br $rest)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.demote_f64
            (f64.mul
              (f64.mul (f64.convert_i32_s (local.get $sum)) (local.get $qscale))
              (f64.promote_f32 (f32.load (local.get $base))))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))
)
