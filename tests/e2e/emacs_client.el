;;; Drives Emacs 28 + eglot as a real LSP client, through editors/emacs/spvasm-mode.el.  -*- lexical-binding: t -*-
(require 'json)
(require 'cl-lib)
(setq spvasm-spvls-command (list (getenv "SPVLS_PYTHON") "-m" "spvls"))
(load (getenv "SPVLS_MODE_EL"))
(setq eglot-sync-connect 30)

(defun spvls-test-wait (pred seconds)
  (let ((end (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) end))
      (accept-process-output nil 0.05))
    (funcall pred)))

(defun spvls-test-goto (line col)
  (goto-char (point-min))
  (forward-line (1- line))
  (move-to-column col))

(let ((result nil) (filetypes nil))
  ;; File types: the mode each file gets (its buffer is killed before eglot would connect).
  (dolist (name (split-string (getenv "SPVLS_FT_FILES") ","))
    (with-current-buffer (find-file-noselect (expand-file-name name (getenv "SPVLS_FT_DIR")))
      (push (cons name (symbol-name major-mode)) filetypes)
      (kill-buffer)))
  (push (cons 'filetypes (nreverse filetypes)) result)

  (find-file (getenv "SPVLS_EXAMPLE"))
  (push (cons 'mode (symbol-name major-mode)) result)
  (run-hooks 'post-command-hook)  ; where eglot-ensure connects, as after the user's first command
  (spvls-test-wait (lambda () (eglot-current-server)) 30)
  (flymake-start)  ; batch Emacs has no window for flymake's deferred start
  (spvls-test-wait (lambda () (flymake-diagnostics)) 30)
  (push (cons 'diagnostics
              (vconcat (mapcar (lambda (d) (vector (line-number-at-pos (flymake-diagnostic-beg d))
                                                   (flymake-diagnostic-text d)))
                               (flymake-diagnostics))))
        result)

  (spvls-test-goto 23 20)
  (let ((hover (jsonrpc-request (eglot--current-server-or-lose) :textDocument/hover
                                (eglot--TextDocumentPositionParams))))
    (push (cons 'hover (plist-get (plist-get hover :contents) :value)) result))

  (spvls-test-goto 10 37)
  (let* ((capf (eglot-completion-at-point))
         (table (nth 2 capf)))
    (push (cons 'completion (vconcat (all-completions "" table))) result))

  (spvls-test-goto 23 0)
  (search-forward "%subgroup")
  (backward-char 2)
  (let ((defs (xref-backend-definitions 'eglot (xref-backend-identifier-at-point 'eglot))))
    (push (cons 'definition_line (xref-location-line (xref-item-location (car defs)))) result))

  ;; The quick fix for the misspelt capability on line 5, applied as eglot applies a chosen action.
  (spvls-test-goto 5 29)
  (let* ((actions (eglot-code-actions (point) (line-end-position)))
         (fix (cl-find-if (lambda (a) (plist-get a :edit)) actions)))
    (push (cons 'action_title (plist-get fix :title)) result)
    (eglot--apply-workspace-edit (plist-get fix :edit)))
  (spvls-test-goto 5 0)
  (push (cons 'fixed_line (buffer-substring-no-properties (line-beginning-position) (line-end-position))) result)

  (with-temp-file (getenv "SPVLS_EDITOR_OUT")
    (insert (json-encode result)))
  (kill-emacs 0))
