setlocal commentstring=;\ %s comments=:;
