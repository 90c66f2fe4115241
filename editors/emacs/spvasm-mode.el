;;; spvasm-mode.el --- SPIR-V assembly, with spvls through eglot  -*- lexical-binding: t -*-

;; Load it from your init file:
;;   (setq spvasm-spvls-command '("~/.venvs/spvls/bin/spvls"))   ; where spvls is installed
;;   (load "/path/to/spvls/editors/emacs/spvasm-mode.el")
;; It needs eglot (built in from Emacs 29; Debian's elpa-eglot for 28, which `emacs -Q` does not
;; load: then this file puts Debian's ELPA packages on the load path itself).

;;; Code:

(unless (locate-library "eglot")
  ;; Debian's elpa-* packages (eglot and the newer project/xref it needs) live here; its site-start
  ;; adds them, but not under `emacs -Q'.
  (dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
    (when (file-directory-p dir)
      (add-to-list 'load-path dir))))
(require 'eglot)

(defvar spvasm-spvls-command '("spvls")
  "The command that runs spvls (a list: program and arguments).")

(defconst spvasm-stages
  '("comp" "frag" "vert" "geom" "tesc" "tese" "rgen" "rchit" "rmiss" "rahit" "rint" "rcall" "mesh" "task")
  "SPIRV-Cross names its assembly tests NAME.asm[.TAGS].STAGE.")

(defvar spvasm-font-lock-keywords
  '(("\\_<Op[A-Za-z0-9_]+\\_>" . font-lock-keyword-face)
    ("%[A-Za-z0-9_.]+" . font-lock-variable-name-face)
    ("\"[^\"]*\"" . font-lock-string-face)))

(define-derived-mode spvasm-mode prog-mode "SPIR-V"
  "Major mode for SPIR-V assembly (spirv-as / spirv-dis text)."
  (setq-local comment-start "; ")
  (setq-local comment-start-skip ";+\\s-*")
  (modify-syntax-entry ?\; "<" spvasm-mode-syntax-table)
  (modify-syntax-entry ?\n ">" spvasm-mode-syntax-table)
  (modify-syntax-entry ?% "_" spvasm-mode-syntax-table)
  (setq-local font-lock-defaults '(spvasm-font-lock-keywords)))

;; .spvasm, .spv.asm, .spirv, SPIRV-Cross's names; and any file starting with spirv-dis's header
;; (magic-mode-alist is consulted before the file name, so other .asm files keep asm-mode).
(add-to-list 'auto-mode-alist '("\\.\\(spvasm\\|spv\\.asm\\|spirv\\)\\'" . spvasm-mode))
(add-to-list 'auto-mode-alist
             (cons (concat "\\.asm\\(\\.[-[:alnum:]_]+\\)*\\." (regexp-opt spvasm-stages t) "\\'") 'spvasm-mode))
(add-to-list 'magic-mode-alist '("; SPIR-V" . spvasm-mode))

(add-to-list 'eglot-server-programs `(spvasm-mode . ,(lambda (&rest _) spvasm-spvls-command)))
(add-hook 'spvasm-mode-hook #'eglot-ensure)

(provide 'spvasm-mode)
;;; spvasm-mode.el ends here
